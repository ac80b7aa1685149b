"""A scripted suite-game player that reads only the request: the frame (the image part), the HUD line sent
beside it, and the prompt's words. What the policy server answers suite-game prompts with under
`policy=pixels` (issue 41: a pixel player checks that a reader can play from the screen).

It never sees the text view, the state vector or the game's code: it finds each kind on the frame by the
colour the prompt's legend gives ("What you see on the frame": `- blue (#326ef0) disc labelled "YOU": you`,
`SuiteGame.legend`), picks the rows it needs by their words (the row labelled YOU, the row whose meaning
says "warned tile"), takes the level's numbers from the prompt's `### Level rules`, builds the facts the text
stand-in reads (`games_text.py`: a Tilefall map and your place; the duel's offsets; the runner's footing)
and decides with that stand-in's own functions. A game it cannot read yet gets None (the caller answers
the no-op). Of the request's history it reads only its own previous answer: a tap key that answer ended
holding is let go before it is pressed again (`released`), as a player lifts a finger.

Covered: Tilefall (the map read tile by tile off the grout lattice), Duel (your disc, the rival's and the
platform's edges; metres from the fighter's radius in the level rules) and Runner (your square and the
platform under it; metres from the square's height the legend gives). The first-person games
(Monsters, Parkour, Crystal) are read in `games_pixels_fp.py`, off the radar and the view; the top-down
walker games (Escape, Errands, Workshop, Kitchen, Midline, Handoff) in `games_pixels_walk.py` (docs/games.md,
"A pixel player", says how well each plays).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from rtarena.envs.games.keys import ALL_KEYS, TAP_KEYS, KeyMouseSpace, format_chunk, parse_chunk
from rtarena.envs.games.reports import Hud, RunnerReport, TilefallReport
from rtarena.policy_server import games_pixels_fp as first_person
from rtarena.policy_server import games_pixels_walk as walker
from rtarena.policy_server.arena_pixels import frames
from rtarena.policy_server.frame_legend import (
    COLOR_TOLERANCE,
    Row,
    centre,
    find,
    hue_of,
    level_rules,
    lines,
    mask,
    read_hud_line,
    read_legend,
)
from rtarena.policy_server.games_text import HEURISTIC_RULES, Play, duel_play, runner_play, tilefall_play

# ---- tilefall -----------------------------------------------------------------------------------------------

def tilefall(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Play | None:
    """The floor read off the frame: the grout lines (the legend's grout colour) give the tile lattice,
    each tile's middle says solid, warned (the warned colour's hue, however dark) or a hole (the hole
    colour), and your disc (the row labelled YOU) where you are; then `games_text.tilefall_play`."""
    you, grout = find(legend, label="YOU"), find(legend, meaning="the grout")
    warned, hole = find(legend, meaning="a warned tile"), find(legend, meaning="a hole")
    tile_m = float(rules.get("floor", {}).get("tile_m", 0.0))
    if None in (you, grout, warned, hole) or tile_m <= 0:
        return None
    on_grout = mask(rgb, grout.rgb, 6)
    xs, ys = lines(on_grout, 0), lines(on_grout, 1)
    if len(xs) < 2 or len(ys) < 2:
        return None
    step = float(np.median(np.concatenate([np.diff(xs), np.diff(ys)])))
    size = int(rules.get("floor", {}).get("size", 0))  # the floor's tiles a side, from the level rules
    cols = nrows = size or max(round((xs[-1] - xs[0]) / step), round((ys[-1] - ys[0]) / step))
    x0, y1 = xs[0], ys[-1]  # the floor's west edge and its south edge (pixel rows grow southward); where an
    # edge column or row is gone the lattice starts at the next one, and cells past the floor read as holes
    warned_hue = float(hue_of(np.array(warned.rgb))[0])
    grid = np.full((cols, nrows), ".", dtype="<U1")
    pad = max(1, round(step * 0.15))
    for c in range(cols):
        for r in range(nrows):
            cx, cy = x0 + (c + 0.5) * step, y1 - (r + 0.5) * step
            patch = rgb[max(int(cy) - pad, 0):int(cy) + pad + 1, max(int(cx) - pad, 0):int(cx) + pad + 1].reshape(-1, 3)
            if patch.size == 0:  # past the frame: a west or south column gone entirely shifts the lattice
                grid[c, r] = "_"
                continue
            middle = np.median(patch, axis=0)
            hue, sat = hue_of(middle)
            if np.abs(middle - np.array(hole.rgb)).max() <= 2 * COLOR_TOLERANCE:
                grid[c, r] = "_"
            elif sat >= 0.3 and abs((float(hue) - warned_hue + 180) % 360 - 180) <= 15:
                grid[c, r] = "!"
    body = centre(mask(rgb, you.rgb))
    if body is None:
        return None
    x, y = (body[0] - x0) / step * tile_m, (y1 - body[1]) / step * tile_m
    here = (int(np.clip(x // tile_m, 0, cols - 1)), int(np.clip(y // tile_m, 0, nrows - 1)))
    warned_tiles = {(int(c), int(r)): 0.0 for c, r in np.argwhere(grid == "!")}
    grid[here] = "P"
    report = TilefallReport(pos=(float(x), float(y)), warned=warned_tiles, grid=grid)
    return tilefall_play(report, hud, HEURISTIC_RULES.get("Tilefall", ()))


# ---- duel ---------------------------------------------------------------------------------------------------

_SIDES = {"west": (-1.0, 0.0), "east": (1.0, 0.0), "south": (0.0, -1.0), "north": (0.0, 1.0)}


def duel(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Play | None:
    """Your disc and the rival's (the rows labelled YOU and RIVAL); metres from your disc's size against
    the fighter's radius in the level rules (the disc is drawn somewhat larger than the body, so distances
    read short: it strikes a little early and keeps farther from edges); the nearest edge: how far from you
    the void's colour begins in each of the four directions; then `games_text.duel_play`."""
    you, rival = find(legend, label="YOU"), find(legend, label="RIVAL")
    void = find(legend, meaning="the void")
    radius_m = float(rules.get("fighter", {}).get("radius_m", 0.0))
    if None in (you, rival, void) or radius_m <= 0 or hud is None:
        return None
    mine, theirs = mask(rgb, you.rgb), mask(rgb, rival.rgb)
    me, them = centre(mine), centre(theirs)
    if me is None:
        return None
    ys, xs = np.nonzero(mine)
    px_per_m = max(xs.max() - xs.min() + 1, ys.max() - ys.min() + 1) / (2 * radius_m)
    at = ((them[0] - me[0]) / px_per_m, (me[1] - them[1]) / px_per_m) if them else (0.0, 0.0)
    ground = ~mask(rgb, void.rgb)  # labels and decoration stand on the platform: only the void ends it
    edges = {}
    cx, cy = int(me[0]), int(me[1])
    for name, (ux, uy) in _SIDES.items():
        run = 0
        while True:
            x, y = cx + int(ux * run), cy - int(uy * run)
            if not (0 <= x < rgb.shape[1] and 0 <= y < rgb.shape[0]):
                break
            window = ground[max(0, y - 2):y + 3, max(0, x - 2):x + 3]
            if not window.any():
                break
            run += 1
        edges[name] = run / px_per_m
    edge = min(edges, key=edges.get)
    return duel_play(hud, at, edge, edges[edge], HEURISTIC_RULES.get("Duel", ()))


# ---- runner2d -----------------------------------------------------------------------------------------------

_TALL = re.compile(r"a square (?P<m>[\d.]+) m tall")


def runner(rgb: np.ndarray, legend: list[Row], rules: dict, hud: Hud | None) -> Play | None:
    """Your square (the row labelled YOU: its own colour standing, lighter in the air) gives metres (the
    legend says how tall it is); the platform under your feet (the platform or crumbling colour, either
    shade of its bricks) how far it runs ahead; then `games_text.runner_play`."""
    you = find(legend, label="YOU")
    grounds = [r for r in (find(legend, meaning="a platform"), find(legend, meaning="a crumbling")) if r]
    tall = _TALL.search(you.meaning) if you else None
    if you is None or not grounds or tall is None:
        return None
    body = mask(rgb, you.rgb)
    standing = body.sum() > 0
    if not standing:  # airborne: drawn lighter (every channel raised), found by its hue instead
        hue, sat = hue_of(rgb)
        want = float(hue_of(np.array(you.rgb))[0])
        body = (np.abs((hue - want + 180) % 360 - 180) <= 10) & (sat >= 0.3)
    ys, xs = np.nonzero(body)
    if xs.size == 0:
        return None
    px_per_m = (ys.max() - ys.min() + 1) / float(tall["m"])
    below = slice(ys.max() + 1, min(ys.max() + 2 + round(0.3 * px_per_m), rgb.shape[0]))  # under the outline
    bricks = np.zeros((below.stop - below.start, rgb.shape[1]), dtype=bool)
    for look in grounds:  # a platform's bricks: its colour and a darker shade of it
        for shade in (1.0, 0.85):
            bricks |= mask(rgb[below], tuple(int(c * shade) for c in look.rgb))
    under = np.flatnonzero(bricks[:, xs.min():xs.max() + 1].any(axis=1))
    brick = bricks[under[0]] if under.size else np.zeros(rgb.shape[1], dtype=bool)
    centre_x, edge_m = round(xs.mean()), None
    if under.size:
        run = centre_x
        while run + 1 < brick.size and brick[run + 1 : run + 4].any():
            run += 1
        edge_m = (run - centre_x) / px_per_m
    report = RunnerReport(x_m=0.0, height_m=0.0, standing=standing, edge_ahead_m=edge_m, next_platforms=())
    return runner_play(report, HEURISTIC_RULES.get("Runner", ()))



READERS: dict[str, Callable[[np.ndarray, list[Row], dict, Hud | None], Play | None]] = {
    "Tilefall": tilefall, "Duel": duel, "Runner": runner,
    "Monsters": first_person.monsters,
    "Parkour": first_person.parkour,
    "Crystal": first_person.crystal,
    "Escape": walker.escape,
    "Errands": walker.errands,
    "Workshop": walker.workshop,
    "Kitchen": walker.workshop,
    "Midline": walker.midline,
    "Handoff": walker.handoff,
}


def decide(system: str, parts: list[dict[str, Any]], before: str = "") -> Play | None:
    """The chunk and note for a suite-game request from its frame, HUD line and prompt, or None when the
    request has no frame, the prompt no legend with colours, or the game is not one this player reads.
    `before`: this player's previous answer, as the request's history carries it (`released`)."""
    rgb, _ = frames(parts)
    legend = read_legend(system)
    rules = level_rules(system)
    title = str(rules.get("game", {}).get("title", ""))
    reader = READERS.get(title)
    if rgb is None or not legend or reader is None:
        return None
    user = "\n".join(p.get("text", "") for p in parts if p.get("type") == "text")
    played = reader(rgb, legend, rules, read_hud_line(user, title))
    return (released(played[0], before), played[1]) if played else None


ANY_KEYS = KeyMouseSpace(ALL_KEYS, mouse=True)
_ACTION = re.compile(r"^ACTION:\s*(?P<chunk>.+)$", re.M)


def released(chunk: str, before: str) -> str:
    """A tap key (E, F, Space ...) acts only as it goes down: one the previous answer (`before`: its reply,
    whose `ACTION:` line the request's history keeps) ended holding and this chunk taps again (holds for its
    first step only) would stay down and do nothing. So the answer is that first step without it, one step
    with the key up (as a player lifts a finger to press again); the next answer presses it anew."""
    previous = _ACTION.findall(before)
    then, now = parse_chunk(previous[-1] if previous else "", ANY_KEYS), parse_chunk(chunk, ANY_KEYS)
    if not then.valid or not now.valid:
        return chunk
    first = ANY_KEYS.held(now.actions[0])
    again = ANY_KEYS.held(then.actions[-1]) & first & TAP_KEYS
    if len(now.actions) > 1:
        again -= ANY_KEYS.held(now.actions[1])  # held on: a hold ("Hold E to work"), not a new press
    if not again:
        return chunk
    return format_chunk([ANY_KEYS.action(sorted(first - again), *now.actions[0]["mouse"])], ANY_KEYS)

