"""Heuristic arena bots: `--agent heuristic[:easy|medium|hard]`.

A bot reads its observation's `state` vector (see `envs/arena/observations/state.py`) and keeps the minimap
open to know where coins, ammo boxes and turrets are. Being scripted, it is privileged (its `AGENT_KINDS`
row says so): from `context.privileged`, the runtime's copy of the env's `privileged_state`, it reads what a
player would know from the level's documentation: the rules (rates, ranges, the hit cone), the static
obstacles (for an occupancy grid it plans paths on) and the team assignment, all in `level_knowledge`. It
never reads the positions of other players, chickens or anything else that is not in its own observation.

What it does each decision, in order of priority:
1. fight: aim at the nearest visible opponent (after its reaction time), else at a turret that is locked
   on it or in range, else (medium, hard) at a chicken; fire once the target is within the hit cone;
2. stay safe: head for the zone's centre when outside the toxic zone or when a shrink is about to catch it;
3. refill: walk to the nearest known ammo box when low on ammunition;
4. collect: walk to a coin, planned on the occupancy grid; in coop and mixed levels teammates split the
   coins by sector of the arena so they do not chase the same ones;
5. explore: otherwise walk to random places (to find opponents).
While a turret is locked on it, a medium or hard bot strafes across the turret's line of fire, so the
turret's shells miss. When it does not move for a while it jumps (over crates) and replans.
Difficulty sets the reaction time and aim noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rtarena.agents.scripted.arena_planner import GridPlanner
from rtarena.contract import Agent, AgentContext, Decision, PrivilegedFeed
from rtarena.envs.arena.layout import team_of
from rtarena.envs.arena.observations.state import block
from rtarena.envs.arena.world import occupancy_grid
from rtarena.errors import UserError


@dataclass(frozen=True)
class Difficulty:
    reaction_s: float  # an opponent must stay in view this long before the bot engages it
    aim_noise_deg: float  # standard deviation of the error in the bearing the bot perceives
    dodge: bool  # strafe across turret locks
    chickens: bool  # shoot chickens when nothing else is in sight


DIFFICULTIES = {
    "easy": Difficulty(reaction_s=1.0, aim_noise_deg=14.0, dodge=False, chickens=False),
    "medium": Difficulty(reaction_s=0.4, aim_noise_deg=5.0, dodge=True, chickens=True),
    "hard": Difficulty(reaction_s=0.0, aim_noise_deg=1.0, dodge=True, chickens=True),
}
LOW_AMMO = 5
CELL_M = 1.0


@dataclass
class BodyMemory:
    """What one bot remembers about its own body between decisions."""

    rng: np.random.Generator
    index: int
    sector: tuple[float, float] | None  # the arc of the arena (radians around the centre) it collects in
    goal: np.ndarray | None = None
    path: np.ndarray | None = None
    path_at: int = 0
    replan_in: int = 0
    engaged_s: float = 0.0
    last_t: float = 0.0
    history: list = field(default_factory=list)
    unstick: int = 0
    strafe: int = 1
    strafe_in: int = 0
    explore: np.ndarray | None = None


@dataclass(frozen=True)
class LevelKnowledge:
    """What the bot knows of the level before it plays: all it reads from its privileged snapshot."""

    rules: Any  # the level's rules in force (its own copy; numbers only)
    size_m: float
    blocked: np.ndarray  # occupancy grid [ix, iy] of static obstacles, grown by the body radius
    agents: list[str]
    teams: list[int]


def level_knowledge(feed: PrivilegedFeed | None, agent: str) -> LevelKnowledge:
    """The bot's only reads of world state: rules, arena size, static obstacles and the team split."""
    facts = feed[agent] if feed is not None else None
    if not isinstance(facts, dict) or not {"rules", "boxes", "size_m"} <= facts.keys():
        raise UserError("the heuristic arena bot needs an arena env (it reads the level as a privileged agent)",
                        field="--agent")
    rules = facts["rules"]
    radius = float(rules.players.radius_m)
    agents = list(facts["agents"])
    n = len(agents)
    return LevelKnowledge(
        rules=rules,
        size_m=facts["size_m"],
        blocked=occupancy_grid(facts["boxes"], facts["kinds"], facts["size_m"], CELL_M, inflate_m=radius + 0.3),
        agents=agents,
        teams=[team_of(i, n, rules.players.teams) for i in range(n)],
    )


class HeuristicBot(Agent):
    """The arena's scripted opponent and teammate (see the module docstring)."""

    name = "heuristic"
    privileged = True

    def __init__(self, difficulty: str | None = "medium") -> None:
        difficulty = difficulty or "medium"
        if difficulty not in DIFFICULTIES:
            raise UserError(f"unknown difficulty {difficulty!r}; choose easy, medium or hard", field="--agent")
        self.difficulty = difficulty
        self.level = DIFFICULTIES[difficulty]

    # -- episode setup ------------------------------------------------------------------------------
    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        level = level_knowledge(context.privileged, context.agents[0])
        rules = level.rules
        self.size = level.size_m
        self.dt = float(context.dt)
        self.time_limit = float(rules.arena.time_limit_s)
        self.view_range = float(rules.players.view_range_m)
        self.turn_step = math.radians(float(rules.players.turn_deg_s)) * self.dt
        self.hit_cone = math.radians(float(rules.weapon.hit_cone_deg))
        self.turret_range = float(rules.turret.range_m)
        self.ammo_max = int(rules.players.ammo_max)
        self.planner = GridPlanner(level.blocked, CELL_M)
        agents, teams = level.agents, level.teams
        n = len(agents)
        rng = np.random.default_rng(context.seed)
        self.bodies: dict[str, BodyMemory] = {}
        for agent in context.agents:
            i = agents.index(agent)
            mates = [j for j in range(n) if teams[j] == teams[i]]
            sector = None
            if len(mates) > 1:
                k = mates.index(i)
                width = 2 * math.pi / len(mates)
                sector = (k * width - math.pi, (k + 1) * width - math.pi)
            self.bodies[agent] = BodyMemory(rng=np.random.default_rng(rng.integers(2**31)), index=i, sector=sector)

    # -- decisions ----------------------------------------------------------------------------------
    def act(self, observation: Any) -> Decision:
        if len(self.context.agents) == 1:
            return Decision(action=self.decide(self.context.agent, observation))
        return Decision(action={a: self.decide(a, obs) for a, obs in observation.items()})

    def decide(self, agent: str, observation: dict[str, Any]) -> np.ndarray:
        mem = self.bodies[agent]
        st = np.asarray(observation["state"], dtype=np.float64)
        me = block(st, "self")[0]
        t = (1.0 - me[0]) * self.time_limit
        pos = np.array([me[4], me[5]]) * self.size
        yaw = math.atan2(me[7], me[8])
        ammo = round(me[2] * self.ammo_max)
        action = np.zeros(7, dtype=np.int64)
        action[6] = 1  # keep the minimap open: it tells where coins, ammo and turrets are

        target = self._target(mem, st, t)
        move_dir = self._movement(mem, st, pos, yaw, ammo, t)
        if target is not None:
            bearing = target + mem.rng.normal(0.0, math.radians(self.level.aim_noise_deg))
            if abs(bearing) > self.turn_step / 2:
                action[2] = 1 if bearing > 0 else 2
            if abs(bearing) <= self.hit_cone and me[11] > 0:
                action[4] = 1
        elif move_dir is not None:
            rel = _wrap(move_dir - yaw)
            if abs(rel) > self.turn_step / 2:
                action[2] = 1 if rel > 0 else 2
        if move_dir is not None:
            rel = _wrap(move_dir - yaw)
            c, s = math.cos(rel), math.sin(rel)
            action[1] = 2 if c > 0.38 else (1 if c < -0.38 else 0)
            action[0] = 1 if s > 0.38 else (2 if s < -0.38 else 0)
        if mem.unstick > 0:
            mem.unstick -= 1
            action[5] = 1
        return action

    # -- fighting -----------------------------------------------------------------------------------
    def _target(self, mem: BodyMemory, st: np.ndarray, t: float) -> float | None:
        """Bearing (radians, + left) of what to shoot at, or None."""
        players = block(st, "players")
        enemies = players[(players[:, 0] > 0) & (players[:, 5] > 0)]
        if len(enemies):
            if mem.engaged_s <= 0:
                mem.engaged_s = t
            mem.last_t = t
            if t - mem.engaged_s >= self.level.reaction_s - 1e-9:
                nearest = enemies[np.argmin(enemies[:, 1])]
                return math.atan2(nearest[2], nearest[3])
            return None
        if t - mem.last_t > 1.0:
            mem.engaged_s = 0.0
        turrets = block(st, "turrets")
        ammo_ok = block(st, "self")[0][2] * self.ammo_max > LOW_AMMO
        threats = turrets[(turrets[:, 0] > 0) & ((turrets[:, 5] > 0)
                                                  | (turrets[:, 1] * self.view_range <= self.turret_range + 5))]
        if len(threats) and ammo_ok:
            nearest = threats[np.argmin(threats[:, 1])]
            return math.atan2(nearest[2], nearest[3])
        chickens = block(st, "chickens")
        chickens = chickens[(chickens[:, 0] > 0) & (chickens[:, 1] * self.view_range < 15)]
        if self.level.chickens and len(chickens) and ammo_ok:
            nearest = chickens[np.argmin(chickens[:, 1])]
            return math.atan2(nearest[2], nearest[3])
        return None

    # -- moving -------------------------------------------------------------------------------------
    def _movement(self, mem: BodyMemory, st: np.ndarray, pos: np.ndarray, yaw: float, ammo: int,
                  t: float) -> float | None:
        """World-frame direction (radians) to move in, or None to stand."""
        goal = self._goal(mem, st, pos, yaw, ammo)
        self._track_progress(mem, pos)
        direction = None
        if goal is not None:
            direction = self._follow(mem, pos, goal)
        turrets = block(st, "turrets")
        locked = turrets[(turrets[:, 0] > 0) & (turrets[:, 5] > 0)]
        if self.level.dodge and len(locked):
            # Strafe across the turret's line of fire, on the side closer to where we were going.
            turret_dir = yaw + math.atan2(locked[0, 2], locked[0, 3])
            mem.strafe_in -= 1
            if mem.strafe_in <= 0:
                mem.strafe, mem.strafe_in = -mem.strafe, int(mem.rng.integers(4, 9))
            across = turret_dir + mem.strafe * math.pi / 2
            if direction is not None and math.cos(_wrap(across - direction)) < -0.5:
                mem.strafe = -mem.strafe
                across = turret_dir + mem.strafe * math.pi / 2
            direction = across
        return direction

    def _goal(self, mem: BodyMemory, st: np.ndarray, pos: np.ndarray, yaw: float, ammo: int) -> np.ndarray | None:
        me = block(st, "self")[0]
        centre = np.array([self.size / 2, self.size / 2])
        if me[12] > 0:
            zone_radius, target_radius = me[17] * self.size, me[19] * self.size
            soon = me[18] * self.time_limit < 12
            limit = target_radius if soon else zone_radius
            if np.hypot(*(pos - centre)) > limit - 3:
                return centre + (pos - centre) * min(1.0, 0.5 * limit / max(1e-6, np.hypot(*(pos - centre))))
        else:
            zone_radius = math.inf
        if ammo < LOW_AMMO:
            boxes = block(st, "map_ammo")
            boxes = boxes[boxes[:, 0] > 0, 1:3] * self.size
            if len(boxes):
                return boxes[np.argmin(np.hypot(*(boxes - pos).T))]
        coins = block(st, "map_coins")
        coins = coins[coins[:, 0] > 0, 1:3] * self.size
        if len(coins):
            cost = np.hypot(*(coins - pos).T)
            cost = cost + 1000.0 * (np.hypot(*(coins - centre).T) > zone_radius - 2)
            if mem.sector is not None:
                angle = np.arctan2(coins[:, 1] - centre[1], coins[:, 0] - centre[0])
                lo, hi = mem.sector
                cost = cost + 40.0 * ~((angle >= lo) & (angle < hi))
            return coins[np.argmin(cost)]
        if mem.explore is None or np.hypot(*(mem.explore - pos)) < 3:
            mem.explore = mem.rng.uniform(0.2, 0.8, size=2) * self.size
        return mem.explore

    def _follow(self, mem: BodyMemory, pos: np.ndarray, goal: np.ndarray) -> float:
        """Direction toward the next waypoint of a planned path to `goal`."""
        mem.replan_in -= 1
        if mem.goal is None or np.hypot(*(mem.goal - goal)) > 1.0 or mem.path is None or mem.replan_in <= 0:
            mem.goal, mem.path, mem.path_at, mem.replan_in = goal, self.planner.path(pos, goal), 0, 12
        if mem.path is None or len(mem.path) == 0:
            return math.atan2(goal[1] - pos[1], goal[0] - pos[0])
        # Skip waypoints already reached, then aim two cells ahead to cut corners smoothly.
        while mem.path_at < len(mem.path) - 1 and np.hypot(*(mem.path[mem.path_at] - pos)) < 1.5:
            mem.path_at += 1
        waypoint = mem.path[min(mem.path_at + 1, len(mem.path) - 1)]
        if mem.path_at >= len(mem.path) - 2:
            waypoint = goal
        return math.atan2(waypoint[1] - pos[1], waypoint[0] - pos[0])

    def _track_progress(self, mem: BodyMemory, pos: np.ndarray) -> None:
        mem.history.append(pos.copy())
        if len(mem.history) > 6:
            mem.history.pop(0)
            if np.hypot(*(mem.history[-1] - mem.history[0])) < 0.5 and mem.goal is not None:
                mem.unstick = 2
                mem.replan_in = 0
                mem.history.clear()


def _wrap(angle: float) -> float:
    return (angle + math.pi) % (2 * math.pi) - math.pi
