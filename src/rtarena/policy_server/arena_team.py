"""The scripted team policy for the arena: one reply decides for several bodies, and coordinates them.

Asked for several bodies at once (a `team:` controller's request: one `### <id>` block per body), the
server does what the single-body heuristic (`arena_text.py`) cannot: it pools what every body sees (the
coins in each body's view, placed in the world from its position and heading, and the coins of any open
minimap) and gives each body a different coin, nearest pairs first, so two bodies never run for the same
coin. A body that sees no coin of its own heads for the nearest coin of any teammate's open minimap that
nobody has, opens the minimap when none is open, and otherwise walks away from its nearest teammate (the
team spreads out). One body, the scout, keeps its minimap open on every step, so the team always knows
where the coins are (a body alone opens it every other step and turns back and forth between the two). The zone, enemies
and an empty gun are each body's own business (`arena_text.urgent`).

The reply also grows with the team: `plan_lines` writes one line per body (its target), and the server
thinks `plan_tokens` reasoning tokens per body (`ServerSettings.plan_tokens`, paced at `filler_rate` like
filler tokens), as a model planning for n bodies writes about n times as much. Time that is free (the
`paused` clock) makes the coordination pure gain; under `wall` and `token` the longer reply is paid for
in stale actions (the `centralized-vs-decentralized` preset, docs/findings.md).
"""

from __future__ import annotations

import math

from rtarena.envs.arena.observations.report import ArenaReport, read_report
from rtarena.policy_server.arena_text import EXPLORE, decide, go_to, urgent, with_strafe

SAME_COIN_M = 2.0  # two sightings this close are one coin (positions are written to 0.1 m, minimap to 1 m)
OPEN_MINIMAP = [0, 2, 2, 0, 0, 0, 1]
MINIMAP = 6  # the action's minimap index


def coin_sightings(report: ArenaReport) -> list[tuple[float, tuple[float, float], float]]:
    """(distance m, world position, bearing deg) of each coin a body sees, nearest first; the world position
    comes from the body's position, its heading and the coin's bearing."""
    x, y = report.position
    out = []
    for s in report.in_view:
        if s.kind == "coin":
            angle = math.radians(report.heading_deg + s.bearing_deg)
            out.append((s.dist_m, (x + s.dist_m * math.cos(angle), y + s.dist_m * math.sin(angle)), s.bearing_deg))
    return sorted(out)


def bearing_to(report: ArenaReport, point: tuple[float, float]) -> float:
    """Bearing (deg, + left) from a body to a world point."""
    x, y = report.position
    absolute = math.degrees(math.atan2(point[1] - y, point[0] - x))
    return (absolute - report.heading_deg + 180.0) % 360.0 - 180.0


def claimed(point: tuple[float, float], taken: list[tuple[float, float]]) -> bool:
    return any(math.dist(point, q) <= SAME_COIN_M for q in taken)


def assign(reports: dict[str, ArenaReport]) -> dict[str, tuple[tuple[float, float], float]]:
    """Each body at most one coin it sees and each coin at most one body, nearest pairs first: two bodies
    that see the same coin no longer both run for it. Returns agent -> (coin position, bearing)."""
    pairs = sorted((d, agent, point, bearing) for agent, r in reports.items()
                   for d, point, bearing in coin_sightings(r))
    chosen: dict[str, tuple[tuple[float, float], float]] = {}
    for _, agent, point, bearing in pairs:
        if agent not in chosen and not claimed(point, [p for p, _ in chosen.values()]):
            chosen[agent] = (point, bearing)
    return chosen


def away_from_teammates(report: ArenaReport, others: list[ArenaReport]) -> list[int]:
    """Walk away from the nearest teammate (spread out to find coins nobody is after)."""
    if not others:
        return list(EXPLORE)
    near = min(others, key=lambda o: math.dist(o.position, report.position))
    if math.dist(near.position, report.position) < 1e-6:
        return list(EXPLORE)
    x, y = report.position
    return go_to(bearing_to(report, (2 * x - near.position[0], 2 * y - near.position[1])))


def decide_team(texts: dict[str, str]) -> tuple[dict[str, list[int]], dict[str, str]]:
    """Every body's action and a one-line plan for each (what the reply says it is doing).

    A body keeps the single-body heuristic's choice unless it would duplicate a teammate's: coins are
    handed out nearest pair first among the coins the bodies see; a body left without one heads for the
    nearest coin of any open minimap that nobody has, opens the minimap when no minimap is open, or spreads
    out."""
    reports = {a: r for a, t in texts.items() if (r := read_report(t)) is not None}
    actions = {a: decide(t) for a, t in texts.items() if a not in reports}
    plans = {a: "no report: exploring" for a in actions}
    free = {}
    for agent, report in reports.items():
        if (action := urgent(report)) is not None:
            actions[agent], plans[agent] = action, "handling a threat (zone, enemy or ammo)"
        else:
            free[agent] = report
    targets = assign(free)
    taken = [p for p, _ in targets.values()]
    # every open minimap shows the same coins: what one body's minimap shows, the whole team knows
    known = list(dict.fromkeys(c for r in reports.values() for c in r.minimap_coins))
    for agent, report in free.items():
        if agent in targets:
            (cx, cy), bearing = targets[agent]
            actions[agent], plans[agent] = with_strafe(report, go_to(bearing)), f"coin at ({cx:.0f}, {cy:.0f})"
            continue
        left = sorted((math.dist(report.position, c), c) for c in known if not claimed(c, taken))
        if left:
            coin = left[0][1]
            taken.append(coin)
            actions[agent] = with_strafe(report, go_to(bearing_to(report, coin)))
            plans[agent] = f"coin at ({coin[0]:.0f}, {coin[1]:.0f}) from the minimap"
        elif not known:
            actions[agent], plans[agent] = with_strafe(report, list(OPEN_MINIMAP)), "opening the minimap"
        else:
            others = [r for a, r in reports.items() if a != agent]
            actions[agent] = with_strafe(report, away_from_teammates(report, others))
            plans[agent] = "spreading out to search"
    if free:
        # one scout keeps its minimap open every step, so the team always knows where the coins are (a body
        # on its own opens it every other step and turns back and forth between the two)
        scout = min(free)
        actions[scout][MINIMAP] = 1
        plans[scout] += "; keeping the minimap open for the team"
    return {a: actions[a] for a in texts}, {a: plans[a] for a in texts}
