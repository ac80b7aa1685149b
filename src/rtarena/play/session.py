"""One person's episode of any env with a human path: the env, its slots, the person's input and view.

`HumanSession` is what the play page (`web.py`) and the feasibility check (`check.py`) share: the env made
for the person to see (`PERSON_VIEW` per family), the slots (the person where `--agent human` says,
bots or models elsewhere: a person against a model in `duel`, with a bot in `kitchen`), the input
snapshot the family's human agent reads (`agents.human.HUMAN_PATHS`), the frames handed to the page, and
the records, written like any run's: the person's slot spec is `human:DEVICE` (`human:web`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtarena.agents.human import GAME_KEYS, HUMAN_PATHS, LAYOUTS, KeyboardSnapshot
from rtarena.contract import Agent
from rtarena.errors import UserError
from rtarena.play import HUMAN_FAMILIES, ArenaViewer, ObsViewer, _Frames, _Watched, human_family
from rtarena.runtime.clocks import Clock, WallClock

__all__ = ["HUMAN_FAMILIES", "HumanSession", "human_family", "keys_help"]
BROWSER_FAMILIES = ("web", "gui-games")
# What a person sees per family (env keyword arguments): a browser task's screenshot and marks at every
# step; a game's and the arena's defaults (the arena's views come from its renderer).
PERSON_VIEW: dict[str, dict[str, Any]] = {"web": {"obs": ("rgb", "marks", "time", "goal")},
                                          "gui-games": {"obs": ("rgb", "marks", "time", "goal")}}
ARENA_VIEW_PX = (320, 240)


def keys_help(family: str, env: Any) -> list[str]:
    """The controls a person reads beside the view."""
    if family == "arena":
        names = ("forward", "back", "strafe left", "strafe right", "turn left", "turn right", "look up",
                 "look down", "fire", "jump", "minimap")
        return [f"{key}: {name}" for key, name in zip(LAYOUTS["wasd"], names, strict=True)]
    if family == "games":
        space = env.keyspace
        keys = [f"{name}: {' / '.join(GAME_KEYS[name])}" for name in space.key_names]
        return keys + (["mouse: click the view to capture it, then move to look"] if space.uses_mouse else [])
    return ["click the page, type, Enter, arrows: as in a browser"]


@dataclass
class HumanSession:
    """One episode: the env wrapped for the person's view, its controllers and the person's input."""

    env_id: str
    family: str
    watched: _Watched
    controllers: dict[str, Agent]
    specs: list[str]
    humans: dict[str, str]  # env agent -> input device
    seed: int
    max_steps: int | None
    kwargs: dict[str, Any]
    clock: Clock = field(default_factory=WallClock)  # a person plays in real time; `play --check` pauses
    keyboard: KeyboardSnapshot = field(default_factory=KeyboardSnapshot)
    frames: _Frames = field(default_factory=_Frames)
    interrupted: str | None = None

    @classmethod
    def build(cls, env_id: str, agents: list[str] | None = None, *, device: str = "web", map: str | None = None,
              sets: tuple[str, ...] = (), disable: tuple[str, ...] = (), dt: float | None = None, seed: int = 0,
              max_steps: int | None = None,
              hand: Callable[[KeyboardSnapshot, Agent, str], Agent] | None = None) -> HumanSession:
        """The env and its slots. `hand(keyboard, human_agent, agent_id)` replaces each person's agent (the
        check's oracle, pressing keys through a snapshot of its own): then every slot is a person."""
        from rtarena.agents.specs import build_agent, check_spec
        from rtarena.envs.registry import make
        from rtarena.eval.customize import arena_kwargs

        family = human_family(env_id)
        kwargs = {**arena_kwargs(env_id, map, sets, disable), **PERSON_VIEW.get(family, {})}
        if dt is not None and family != "games":  # a game's dt is its level's
            kwargs["dt"] = dt
        env = make(env_id, **kwargs)
        try:
            specs = cls._slots(env, ["human"] * len(env.possible_agents) if hand else agents or [], family, device)
            for text in specs:
                if not text.startswith("human"):
                    check_spec(text, family)
        except BaseException:
            env.close()
            raise
        session = cls(env_id, family, None, {}, specs, {}, seed, max_steps, kwargs)  # type: ignore[arg-type]
        wait_s = float(env.dt) if hand is None else 0.0  # a live person's click commits when made
        for agent_id, text in zip(env.possible_agents, specs, strict=True):
            if text.startswith("human"):
                keyboard = KeyboardSnapshot() if hand else session.keyboard
                person = HUMAN_PATHS[family](keyboard, wait_s)
                session.controllers[agent_id] = hand(keyboard, person, agent_id) if hand else person
                session.humans[agent_id] = device
            else:
                session.controllers[agent_id] = build_agent(text, family)
            session.controllers[agent_id].name = text
        human_ids = list(session.humans)
        viewer = ArenaViewer([env.possible_agents.index(a) for a in human_ids], ARENA_VIEW_PX) \
            if family == "arena" else ObsViewer(human_ids, game=family == "games")
        session.watched = _Watched(env, viewer, session.frames)
        return session

    @staticmethod
    def _slots(env: Any, specs: list[str], family: str, device: str) -> list[str]:
        slots = list(env.possible_agents)
        specs = list(specs or ["human"])
        if len(specs) > len(slots):
            raise UserError(f"{len(specs)} --agent specs for {len(slots)} slots of this env", field="--agent")
        people = [s for s in specs if s == "human" or s.startswith("human:")]
        if len(people) != 1 and not (specs and len(people) == len(specs) == len(slots) and device != "web"):
            raise UserError(f"one person plays a page: give `--agent human` once, got {len(people)}",
                            field="--agent")
        specs += ["heuristic"] * (len(slots) - len(specs))
        return [f"human:{device}" if s in people else s for s in specs]

    def describe(self) -> dict[str, Any]:
        """What the page shows beside the view."""
        env = self.watched.env
        mouse = self.family == "games" and env.keyspace.uses_mouse
        return {"env_id": self.env_id, "family": self.family, "keys": keys_help(self.family, env),
                "mouse": mouse, "browser": self.family in BROWSER_FAMILIES, "dt": float(env.dt),
                "slots": dict(zip(env.possible_agents, self.specs, strict=True))}

    def play(self) -> Any:
        """Run the episode (in a worker thread: Ctrl-C here ends it as interrupted, with its records)."""
        from rtarena.runtime.match import run_match

        outcome: dict[str, Any] = {}

        def match() -> None:
            try:
                outcome["result"] = run_match(self.watched, self.controllers, clock=self.clock, seed=self.seed,
                                              max_steps=self.max_steps, env_id=self.env_id)
            except BaseException as error:  # raised again on the calling thread
                outcome["error"] = error

        self.keyboard.clear()
        thread = threading.Thread(target=match, name="rtarena-play-match", daemon=True)
        thread.start()
        try:
            while thread.is_alive():
                thread.join(0.2)
        except KeyboardInterrupt:
            self.interrupted = "stopped with Ctrl-C"
            self.watched.stop.set()
            thread.join()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["result"]

    def record(self, result: Any, out: Path | None) -> dict[str, Any]:
        """The episode's line (written to `out` with its Parquet records when given)."""
        from rtarena.eval.store import episode_key, write_episode

        walked = {a: round(float(d), 3) for a, d in zip(self.humans, self.watched.walked, strict=True)}
        result.wall_seconds = max(0.0, result.wall_seconds - self.watched.waited_s)  # not the wait for Start
        extra = {"agent_specs": self.specs, "env_kwargs": self.kwargs, "humans": self.humans, "label": "play",
                 "slot_specs": dict(zip(self.watched.possible_agents, self.specs, strict=True)),
                 "walked_m": walked, "interrupted": self.interrupted is not None,
                 **({"interrupted_why": self.interrupted} if self.interrupted else {})}
        if out is None:
            return {**result.summary(), **extra}
        key = episode_key(self.env_id, self.seed, f"play{int(time.time() * 1000)}")
        return write_episode(Path(out), key, result, extra, slot_specs=extra["slot_specs"])

    def close(self) -> None:
        for agent in self.controllers.values():
            agent.close()
        self.watched.close()
