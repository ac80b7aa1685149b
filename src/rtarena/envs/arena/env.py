"""`ArenaEnv`: the base class of every arena level; it owns the PettingZoo protocol and the step loop.

A level subclass names its TOML file and fills in three hooks: `score(i)` (normalised to [0, 1]),
`outcome(i)` ("win", "draw" or "loss") and `level_over()`. Everything else (the world, the rules, the
physics sub-steps, events, observations, metrics) lives here and in the modules it composes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from rtarena.contract import EnvCapabilities
from rtarena.envs.arena import metrics
from rtarena.envs.arena.events import EventLog
from rtarena.envs.arena.layout import Layout, make_layout, read_map, world_from_layout
from rtarena.envs.arena.observations import modality
from rtarena.envs.arena.perception import AgentView, Perception, agent_view, perceive
from rtarena.envs.arena.rules import Rules, load_rules
from rtarena.envs.arena.sim import ACTION_TOP, FIRE, MINIMAP, Simulation  # noqa: F401 (action indices)
from rtarena.envs.arena.world import World
from rtarena.envs.base import RealtimeParallelEnv
from rtarena.envs.level_files import fill_doc
from rtarena.errors import UserError
from rtarena.limits import check_limit

ACTION_NVEC = tuple(int(top) + 1 for top in ACTION_TOP)  # (3, 3, 3, 3, 2, 2, 2)
ACTION_NAMES = ("move_x", "move_y", "yaw", "pitch", "fire", "jump", "minimap")


class ArenaEnv(RealtimeParallelEnv):
    """Base of the arena levels (see `levels.py` for the documented, registered ones).

    Keyword arguments: `num_agents` (default from the level file), `dt` (simulated seconds per step, any
    positive value: it is cut into equal physics sub-steps of at most `arena.substep_s`), `obs` (observation
    modalities), `overrides` (`{"section.key": value}`), `disable` (features to switch off: chickens,
    turret, coins, ammo, toxic_zone, crates, walls), `map` (a layout dict or a JSON/TOML map file; see
    `layout.py`), `render_mode` (`rgb_array` or `human`, see `render/observations.py`); for the
    `rgb`/`depth`/`minimap`/`audio` modalities: `resolution` (128 or `(width, height)`), `hud`,
    `sample_rate` (Hz), `render_threads`; `act_inside_steps` (default off): an action takes effect at its
    commit time, from the first physics sub-step at or after it (`set_action_times`, contract.RealtimeEnv),
    instead of at the next step; off by default so that records stored before it stay byte-identical.
    """

    level_file: ClassVar[str] = "basic.toml"
    # privileged: what the heuristic bot reads before it plays (`privileged_state`; agents/scripted/arena.py);
    # substep_s: declared per instance, with `act_inside_steps`; fused_step: the coin levels (levels.py)
    capabilities = EnvCapabilities(action_names=ACTION_NAMES, privileged=True)
    # A level's docstring is a template: `{turret.count}` and the like are filled from its rules (the level
    # file's own numbers on the class, the numbers in force on an instance: `documentation()`).
    doc_template: ClassVar[str | None] = None
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array", "human"], "name": "arena",
                                          "is_parallelizable": True,
                                          "render_fps": 4}
    # A one-player env observing `rgb` alone steps in one compiled call (`fused.OneAgent`: world, reward, end,
    # HUD and pixels); False on an instance (before `reset`) keeps the step below, which gives the same records.
    fuse: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "level_over" in cls.__dict__ and "capabilities" not in cls.__dict__:  # fused_step follows the end rule
            raise TypeError(f"{cls.__name__} defines its own level_over: declare its own capabilities")
        doc = cls.__dict__.get("__doc__")
        if doc and "{" in doc:
            cls.doc_template = doc
            cls.__doc__ = fill_doc(doc, load_rules(cls.level_file))

    def documentation(self) -> str:
        """The level's docstring with the numbers of the rules in force (overrides and switches included)."""
        return fill_doc(self.doc_template, self.rules) if self.doc_template else (type(self).__doc__ or "")

    def rules_text(self) -> str:
        """The rules in force, one table a line (what the model-agent prompt shows)."""
        return self.rules.text()

    def __init__(
        self,
        num_agents: int | None = None,
        dt: float = 0.25,
        obs: Iterable[str] | str = ("text", "state"),
        overrides: Mapping[str, Any] | None = None,
        disable: Iterable[str] = (),
        map: Mapping[str, Any] | str | Path | None = None,
        render_mode: str | None = None,
        resolution: int | tuple[int, int] = 128,
        hud: bool = True,
        sample_rate: int = 16000,
        render_threads: int | None = None,
        act_inside_steps: bool = False,
    ) -> None:
        super().__init__()
        # options of the rgb/depth/minimap/audio modalities and render modes (envs/arena/render, audio)
        self.sense_options = {"resolution": resolution, "hud": hud, "sample_rate": sample_rate,
                              "render_threads": render_threads}
        self.rules: Rules = load_rules(self.level_file, overrides, disable)
        count = int(num_agents if num_agents is not None else self.rules.players.count)
        if count < 1:
            raise UserError(f"num_agents must be at least 1, got {num_agents!r}", field="num_agents")
        check_limit("env.agents", count, field="num_agents")
        self.possible_agents = [f"p{i}" for i in range(count)]
        self.agent_index = {a: i for i, a in enumerate(self.possible_agents)}
        longest = float(self.rules.arena.substep_s)
        if not (isinstance(dt, (int, float)) and math.isfinite(dt) and dt > 0):
            raise UserError(f"dt must be a positive number of seconds, got {dt!r}", field="dt")
        # A step is cut into equal sub-steps no longer than `arena.substep_s`: any dt works (0.04 s
        # gives one 0.04 s sub-step), and a dt that is a whole multiple keeps exactly that sub-step.
        check_limit("step.dt_s", dt, field="dt")
        substeps = check_limit("step.substeps", max(1, math.ceil(float(dt) / longest - 1e-9)),
                               field="dt / arena.substep_s")
        self.dt, self.substeps = float(dt), substeps
        self.substep_s = round(self.dt / substeps, 12)
        self._act_from: dict[str, int] = {}  # agent -> the sub-step its action starts at (this step only)
        if act_inside_steps:  # declared per instance: the runtime applies actions inside steps only then
            self.capabilities = replace(self.capabilities, substep_s=self.substep_s)
        self.game_map = read_map(map, self.rules, count) if map is not None else None
        if self.game_map and self.game_map.get("zone_rules"):  # the map's zone schedule; overrides still win
            self.rules = load_rules(self.level_file, {**self.game_map["zone_rules"], **(overrides or {})}, disable)
        self.render_mode = render_mode
        self.renderer: Any = None
        if render_mode is not None:
            from rtarena.envs.arena.render.observations import EnvRenderer

            self.renderer = EnvRenderer(self, render_mode)
        names = (obs,) if isinstance(obs, str) else tuple(obs)
        if not names:
            raise UserError("obs must name at least one modality", field="obs")
        self.builders = {name: modality(name)(self) for name in names}
        self.obs_modalities = names
        self._observation_spaces = {a: spaces.Dict({n: b.space for n, b in self.builders.items()})
                                    for a in self.possible_agents}
        self._action_spaces = {a: spaces.MultiDiscrete(ACTION_NVEC) for a in self.possible_agents}
        pl = self.rules.players
        self._motion = (float(pl.move_speed_m_s), math.radians(pl.turn_deg_s), math.radians(pl.pitch_deg_s),
                        math.radians(pl.pitch_limit_deg), float(pl.jump_speed_m_s), float(pl.gravity_m_s2))
        self.sim = Simulation(self.rules)
        self.zone = self.sim.zone
        self.world: World | None = None
        self.layout: Layout | None = None
        self._fused: Any = None

    def privileged_state(self, agent: str) -> dict[str, Any]:
        """What a player knows of the level before it plays (the heuristic bot's one read): the rules in
        force, the arena's size, the players, and the static obstacles (`boxes` rows x0, y0, x1, y1, height;
        `kinds` per box, crates included) for an occupancy grid (`world.occupancy_grid`). No positions."""
        world = self.world
        return {"rules": self.rules, "size_m": float(world.size_m), "agents": list(self.possible_agents),
                "boxes": world.obstacles.boxes, "kinds": world.obstacles.kind}

    def __getstate__(self) -> dict:
        # the fused step's compiled objects neither pickle nor copy: a copy goes on with the env's own step
        return {**self.__dict__, "_fused": None}

    # -- spaces -------------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.MultiDiscrete:
        return self._action_spaces[agent]

    def default_action(self, agent: str) -> np.ndarray:
        return np.zeros(len(ACTION_NVEC), dtype=np.int64)

    # -- level hooks --------------------------------------------------------------------------------
    def score(self, i: int) -> float:
        """Player i's score so far, normalised to [0, 1]."""
        raise NotImplementedError

    def scores(self) -> np.ndarray:
        """Every player's score (levels may vectorise this)."""
        return np.array([self.score(i) for i in range(len(self.possible_agents))], dtype=float)

    def outcome(self, i: int) -> str:
        """"win", "draw" or "loss" for player i, judged now."""
        raise NotImplementedError

    def level_over(self) -> bool:
        """Whether the level's goal ends the episode early (time and deaths are handled here)."""
        return False

    def max_points(self, team_size: int) -> float:
        """Points a side of `team_size` players could make at most (coins, opponents, turrets)."""
        pts = self.rules.points
        opponents = len(self.possible_agents) - team_size
        return max(1e-9, len(self.world.coins.active) * pts.coin + opponents * pts.kill
                   + len(self.world.turrets.alive) * pts.turret)

    def team_members(self, i: int) -> np.ndarray:
        return np.flatnonzero(self.world.players.team == self.world.players.team[i])

    # -- protocol -----------------------------------------------------------------------------------
    def _reset(self, options: dict) -> tuple[dict, dict]:
        rng = self.np_random
        game_map = options.get("map")
        game_map = read_map(game_map, self.rules, len(self.possible_agents)) if game_map is not None else self.game_map
        self.layout = make_layout(self.rules, len(self.possible_agents), rng, game_map)
        self.world = world_from_layout(self.layout, self.rules, rng)
        self.zone.update(self.world)
        self.log = EventLog(self.possible_agents)
        self.points = np.zeros(len(self.possible_agents))
        self.coins_taken = np.zeros(len(self.possible_agents), dtype=np.int64)
        self._routed: dict[str, list[dict]] = {}
        self._observe()
        observations = self._observations(self.agents)
        self._fused = None
        if self.fuse and self.obs_modalities == ("rgb",):
            from rtarena.envs.arena import fused

            if fused.supports(self):
                self._fused = fused.OneAgent(self, observations[self.agents[0]]["rgb"])
        return observations, {a: {"events": []} for a in self.agents}

    def set_action_times(self, at_s: dict[str, float]) -> None:
        """The next step plays each agent's default action until `at_s[agent]` seconds into it, then its
        action, from the first physics sub-step at or after that time."""
        self._act_from = {a: min(self.substeps, math.ceil(t / self.substep_s - 1e-6)) for a, t in at_s.items()}

    def _step(self, actions: dict[str, Any]):
        if self._fused is not None and not self._act_from:
            return self._fused.step(actions)
        world, log, index = self.world, self.log, self.agent_index
        players = world.players
        acts = np.zeros((len(players), len(ACTION_NVEC)), dtype=np.int64)
        for agent, action in actions.items():
            acts[index[agent]] = np.asarray(action, dtype=np.int64).reshape(-1)
        log.start_step()
        # One compiled call runs every sub-step (issue 19); sub-steps keep walking, jumping, turret tracking
        # and shell flight independent of dt. Actions set to start inside the step split it into runs.
        act_from, self._act_from = self._act_from, {}
        cuts = [*sorted({0, *act_from.values()} - {self.substeps}), self.substeps]
        zone_taken = np.zeros(len(players))
        for start, end in itertools.pairwise(cuts):
            run = acts.copy()
            for agent, first in act_from.items():
                if first > start:
                    run[index[agent]] = np.asarray(self.default_action(agent), dtype=np.int64).reshape(-1)
            zone_taken += self.sim.step(world, log, self.np_random, run if act_from else acts, end - start,
                                        self.substep_s, self._motion)
        log.time_s = world.time_s
        for i, damage in enumerate(zone_taken.tolist()):
            if damage > 0:
                log.emit("zone_damage", agent=self.possible_agents[i], damage=round(damage, 6))
        gained = self._score_events(log.step)
        self._routed = log.routed()
        self._observe()
        # Python lists from here: indexing numpy arrays per agent cost more than the lists (issue 19)
        alive = players.alive.tolist()
        over = self.level_over() or not any(alive)
        timed_out = world.time_s >= world.time_limit_s - 1e-9
        terminations, truncations = {}, {}
        for agent in self.agents:
            terminations[agent] = ended = bool(over or not alive[index[agent]])
            truncations[agent] = bool(timed_out and not ended)
        infos = {a: {"events": list(self._routed.get(a, ()))} for a in self.agents}
        if gained is None:
            rewards = dict.fromkeys(self.agents, 0.0)
        else:
            points = gained.tolist()
            rewards = {a: points[index[a]] for a in self.agents}
        return self._observations(self.agents), rewards, terminations, truncations, infos

    # -- scoring ------------------------------------------------------------------------------------
    def _score_events(self, events: list[dict]) -> np.ndarray | None:
        """Points (the reward) each player made with this step's events; None when there were no events."""
        if not events:
            return None
        pts, idx = self.rules.points, self.agent_index
        gained = np.zeros(len(self.possible_agents))
        for e in events:
            scored = metrics.SCORED.get(e["type"])
            if scored is None:
                continue
            who, key, _ = scored
            gained[idx[e[who]]] += getattr(pts, key)
            if key == "coin":
                self.coins_taken[idx[e[who]]] += 1
        self.points += gained
        return gained

    # -- observations -------------------------------------------------------------------------------
    def _observe(self) -> None:
        self._perception: Perception | None = None
        self._views: dict[int, AgentView] = {}
        for builder in self.builders.values():
            builder.prepare()

    @property
    def perception(self) -> Perception:
        """Who sees what this step, worked out on first use: pixel and audio observations never need it
        (it was a third of a one-agent pixel step, issue 19). The world only changes inside `_step`,
        which ends by calling `_observe`, so a late first use sees the same world."""
        if self._perception is None:
            self._perception = perceive(self.world, self.rules)
        return self._perception

    def _observations(self, agents: list[str]) -> dict[str, dict[str, Any]]:
        return {a: {name: b.build(self.agent_index[a]) for name, b in self.builders.items()} for a in agents}

    def view(self, i: int) -> AgentView:
        """What player i sees this step (cached until the next step)."""
        if i not in self._views:
            self._views[i] = agent_view(self.world, self.perception, i)
        return self._views[i]

    def events_of(self, agent: str) -> list[dict]:
        """This step's events that involve `agent`."""
        return self._routed.get(agent, [])

    def event_flags(self, i: int) -> dict[str, bool]:
        me = self.possible_agents[i]
        flags: dict[str, bool] = {}
        for e in self.events_of(me):
            kind = e["type"]
            if kind == "hit" and e["target"] == me:
                flags["hit_by_player"] = True
            elif kind == "turret_shell_hit":
                flags["hit_by_turret"] = True
            elif kind in ("zone_damage", "coin", "dry_fire"):
                flags[{"zone_damage": "zone_damage", "coin": "picked_coin", "dry_fire": "dry_fire"}[kind]] = True
            elif kind == "ammo_pickup":
                flags["picked_ammo"] = True
            elif kind in ("hit", "turret_hit", "chicken_shot") and e["shooter"] == me:
                flags["my_shot_hit"] = True
            elif kind == "kill" and e["shooter"] == me:
                flags["killed"] = True
        return flags

    def zone_report(self, i: int) -> dict[str, Any]:
        """Where player i stands with respect to the toxic zone."""
        world = self.world
        zone, p = world.zone, world.players
        to_centre = zone.center - p.pos[i, :2]
        d = float(np.hypot(*to_centre))
        bearing = math.atan2(to_centre[1], to_centre[0]) - p.yaw[i]
        bearing = (bearing + math.pi) % (2 * math.pi) - math.pi
        inside = (not zone.enabled) or d <= zone.radius_m
        return {
            "inside": inside,
            "distance_m": 0.0 if inside else d - zone.radius_m,
            "distance_to_edge_m": max(0.0, zone.radius_m - d),
            "bearing": bearing,
            "next_shrink_in_s": max(0.0, zone.next_shrink_s - world.time_s) if zone.enabled else math.inf,
        }

    # -- metrics and rendering ----------------------------------------------------------------------
    def episode_metrics(self) -> dict[str, dict[str, Any]]:
        return metrics.episode_metrics(self) if self.world is not None else {}

    def render(self):
        return self.renderer.render() if self.renderer is not None else None

    def close(self) -> None:
        if self.renderer is not None:
            self.renderer.close()
