"""A scripted arena player that reads pixels: the frame (`rgb`) and, when sent, the depth image; never the
text report. What the policy server answers arena prompts with under `policy=pixels` (the stand-in of the
`modality` finding, docs/findings.md).

It decodes the request's image parts as the agent encodes them (`agents/llm/media.py`: the first-person
frame as a colour PNG; depth as a grey PNG, 255 at the eye and 0 at `DEPTH_FAR_M` or beyond) and finds
coins by their colour: the hue and saturation of the arena palette's coin (`render/palette.py:
COIN_RGB`), which coins keep through the haze to about 25 m, and by their shape (a coin is a disc; an ammo
box's yellow stripe is a flat band and a turret's yellow trim a scatter, and neither is walked to).
Stateless, like the text heuristic (`arena_text.py`), and in the same order of priority where pixels allow:

1. a red light in view (a turret's lamp burning while it is locked on; a chicken's comb looks alike from
   afar): strafe away from its side of the screen, keep going (with depth: toward a side that is open);
2. coins in view: turn toward the nearest and walk to it. Without depth, "nearest" is the lowest on the
   screen (things on a flat floor sit lower the nearer they are); with depth it is read off the depth image;
3. nothing: explore, turning and walking (a circle about 3 m across).

What depth adds (the reason the finding's richer condition should play better when time is free; measured
in docs/findings.md): what stands on the floor (a pixel much nearer than the flat floor in its row) and how
far. The records showed where the frame-only player loses: with no coin in view it circles on one spot,
often for the rest of the episode. With depth it
- runs straight down a way open `OPEN_M` or more (nearly the most open in view) to see new ground, sweeps
  toward the more open half of the view otherwise, and turns on the spot from a wall or crate right ahead;
- steps round a crate or wall close before its coin, and strafes toward the side that is not against one.

It dodges a locked turret as often with depth as without: an earlier version used depth to strafe *less*
(only from a turret near enough that walking on would not carry it out of the shell's path, the shell's
flight against the walk's sideways shift), and its pilot (seeds 6000-6009, 60 s turn-based) showed that
costing it coins (+0.18 with that rule, +0.24 without it, in the depth gain of the score): a shell fired
once is what that sum dodges, and a locked turret fires again. So depth is used for finding coins and
choosing the side to strafe to, the uses that make it the richer condition when time is free. Even so,
the score rule registered on that pilot did not hold on fresh seeds (7000-7039, 60 s: +0.040 [-0.010,
+0.090]): within 60 s both players collect most of the coins, and the frame-only player's stuck episodes,
where depth pays, are rare (docs/findings.md).

The level's numbers it needs (the field of view and the eye's height) are read from the request's `### Level
rules` (`LevelNumbers.from_prompt`), as a model reads them: a level that changes them changes the player, and
a request without them is not the pixel player's (the caller falls back to the scripted heuristic, as it does
for a request with no frame).

Audio is not read: the agent sends one mono channel (`media.audio_part`), which says how loud, not where.
"""

from __future__ import annotations

import base64
import colorsys
import io
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from rtarena.agents.llm.prompts import LEVEL_RULES_HEADING
from rtarena.envs.arena.render.palette import COIN_RGB, TURRET_RGB
from rtarena.envs.arena.rules import read_rules_text
from rtarena.policy_server.arena_text import EXPLORE, go_to
from rtarena.policy_server.frame_legend import hsv

DEPTH_FAR_M = 50.0  # the agent's depth encoding: grey 0 at this distance or beyond (media.depth_part)
FLOOR_SHARE = 0.8  # a pixel this much nearer than the floor in its row is something standing on it
HUD_FRACTION = 0.12  # the HUD's rows at the top and bottom of the frame (score, time; health, ammo): not looked at
COIN_HUE_DEG = colorsys.rgb_to_hsv(*(c / 255 for c in COIN_RGB))[0] * 360  # about 47 degrees
TURRET_HUE_DEG = colorsys.rgb_to_hsv(*(c / 255 for c in TURRET_RGB))[0] * 360  # 0: red
HUE_TOLERANCE_DEG = 8.0
MIN_SATURATION = 0.3  # a far coin's colour through the haze keeps at least this much
LAMP_VALUE = 0.8  # a lit lock lamp is this bright through the haze (a dark one is not; a chicken's comb is)
BLOCKED_M = 2.0  # something this close ahead, nearer than the target: step aside
OPEN_M = 25.0  # exploring with depth: a way ahead clear this far (and nearly the clearest in view) is run down
OPEN_SHARE = 0.8
SIDE_BLOCKED_M = 1.5  # an obstacle this close at the edge of the view blocks a strafe to that side
GAP_PX = 2  # coin columns this close belong to one coin
MAX_ASPECT = 2.0  # a coin's disc is at most this much wider than tall (two merged); an ammo box's band is more
MIN_FILL = 0.4  # of its bounding box a coin fills at least this much; a turret's yellow trim much less


@dataclass(frozen=True)
class LevelNumbers:
    """The level's numbers the pixel player works with, from the prompt's level rules: the horizontal field of
    view and the eye's height (where the flat floor is in each row)."""

    fov_deg: float
    eye_m: float

    @classmethod
    def from_prompt(cls, system: str) -> LevelNumbers | None:
        """The numbers in a system prompt's `### Level rules` (`LevelRules.text()`), or None without them."""
        _, heading, after = system.partition(LEVEL_RULES_HEADING)
        rules = read_rules_text(after) if heading else {}
        players = rules.get("players", {})
        if not {"fov_deg", "eye_height_m"} <= players.keys():
            return None
        return cls(float(players["fov_deg"]), float(players["eye_height_m"]))

    @property
    def half_view(self) -> float:
        """tan of half the field of view: a frame's edge column is this far off its centre line."""
        return math.tan(math.radians(self.fov_deg / 2))


@dataclass(frozen=True)
class Blob:
    """One coin seen: its bearing (deg, + left), its lowest row (0..1 down the frame) and, with depth, its
    distance in metres."""

    bearing_deg: float
    bottom: float
    dist_m: float | None


def decode_image(part: dict[str, Any]) -> np.ndarray:
    """An `image_url` part's data URL as an array: (H, W, 3) for colour, (H, W) for grey."""
    from PIL import Image  # the agent encodes its images with Pillow too (media.image_part)

    data = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
    image = Image.open(io.BytesIO(data))
    return np.asarray(image.convert("L") if image.mode in ("L", "I", "I;16") else image.convert("RGB"))


def frames(parts: list[dict[str, Any]]) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The colour frame and the depth in metres (None where not sent) from a user message's parts, in the
    order the agent sends them: the frame first, then depth as the grey image."""
    rgb = depth = None
    for part in parts:
        if part.get("type") != "image_url":
            continue
        image = decode_image(part)
        if image.ndim == 3 and rgb is None:
            rgb = image
        elif image.ndim == 2 and depth is None:
            depth = (1.0 - image.astype(np.float32) / 255.0) * DEPTH_FAR_M
    return rgb, depth


Hsv = tuple[np.ndarray, np.ndarray, np.ndarray]  # a frame's hue, saturation and value (`frame_legend.hsv`)


def colour_mask(colours: Hsv, hue_deg: float, min_value: float = 0.45,
                min_saturation: float = MIN_SATURATION) -> np.ndarray:
    """Pixels of this hue (within `HUE_TOLERANCE_DEG`), saturated and bright enough."""
    hue, saturation, value = colours
    off = np.abs((hue - hue_deg + 180) % 360 - 180)
    return (off <= HUE_TOLERANCE_DEG) & (saturation >= min_saturation) & (value >= min_value)


def hue_mask(rgb: np.ndarray, hue_deg: float, min_value: float = 0.45,
             min_saturation: float = MIN_SATURATION) -> np.ndarray:
    """`colour_mask` of a frame."""
    return colour_mask(hsv(rgb), hue_deg, min_value, min_saturation)


def bearing(column: float, width: int, level: LevelNumbers) -> float:
    """The bearing (deg, + left) of a frame column's centre under the arena's perspective."""
    return math.degrees(math.atan((width / 2 - column - 0.5) / (width / 2) * level.half_view))


def view_rows(height: int) -> slice:
    cut = round(HUD_FRACTION * height)
    return slice(cut, height - cut)


def coins(view: Hsv, shape: tuple[int, ...], depth: np.ndarray | None, level: LevelNumbers) -> list[Blob]:
    """The coins in view, one blob per run of adjacent coin-coloured columns: `view` is the colours of the
    frame's `view_rows`, `shape` the frame's."""
    rows = view_rows(shape[0])
    mask = colour_mask(view, COIN_HUE_DEG)
    columns = np.flatnonzero(mask.any(axis=0))
    blobs = []
    for run in np.split(columns, np.flatnonzero(np.diff(columns) > GAP_PX) + 1) if columns.size else []:
        part = mask[:, run[0]:run[-1] + 1]
        ys, _ = np.nonzero(part)
        tall = ys.max() - ys.min() + 1
        if run.size > MAX_ASPECT * tall or part.sum() < MIN_FILL * run.size * tall:
            continue  # an ammo box's band (flat and wide) or a turret's trim (scattered), not a coin's disc
        dist = None
        if depth is not None:
            metres = depth[rows][:, run[0]:run[-1] + 1][part]
            dist = float(metres.min())  # the nearest coin of a run (coins in one line of sight merge)
        bottom = (rows.start + ys.max()) / shape[0]
        blobs.append(Blob(bearing(float(run.mean()), shape[1], level), bottom, dist))
    return blobs


def lamp_on_left(view: Hsv, width: int) -> bool | None:
    """Whether a turret's lit lock lamp in view (`view`: the colours of the frame's `view_rows`) is on the
    left half of the frame; None for no lamp."""
    columns = np.flatnonzero(colour_mask(view, TURRET_HUE_DEG, LAMP_VALUE, 0.45).any(axis=0))
    return None if columns.size == 0 else bool(columns.mean() < width / 2)


def standing(depth: np.ndarray, level: LevelNumbers) -> np.ndarray:
    """Per column, the depth (m) of the nearest thing standing on the floor between the horizon and the HUD,
    inf where only the floor shows: the flat floor is at `eye_m / tan(angle below the horizon)` in each row,
    and a pixel much nearer than that (`FLOOR_SHARE`) is something on it."""
    height = depth.shape[0]
    rows = np.arange(height // 2, view_rows(height).stop)
    below = (rows + 0.5 - height / 2) / (height / 2) * level.half_view
    floor = level.eye_m / np.maximum(below, 1e-6)
    band = depth[rows]
    return np.where(band < FLOOR_SHARE * floor[:, None], band, np.inf).min(axis=0)


def clearance(near: np.ndarray) -> np.ndarray:
    """How far the way is clear toward each column (m), from `standing`: the nearest thing in a band of
    columns about it (a body is wider than one column), the arena's far wall included, `DEPTH_FAR_M` at most."""
    half = max(1, round(near.size * 0.06))
    padded = np.pad(near, half, mode="edge")
    return np.minimum(np.lib.stride_tricks.sliding_window_view(padded, 2 * half + 1).min(axis=1), DEPTH_FAR_M)


def ahead_m(clear: np.ndarray, bearing_deg: float, level: LevelNumbers) -> float:
    """How far the way is clear toward this bearing (the `clearance` of the column it falls in)."""
    width = clear.size
    column = width / 2 - 0.5 - math.tan(math.radians(bearing_deg)) / level.half_view * width / 2
    return float(clear[int(np.clip(round(column), 0, width - 1))])


def explore(clear: np.ndarray, level: LevelNumbers) -> list[int]:
    """Where to go with no coin in view, from depth: straight down a long open way (to see new ground),
    else walking while sweeping round toward the more open half of the view; against a wall or crate, turn
    on the spot, always the same way (choosing a side there would dither in a corner)."""
    ahead = ahead_m(clear, 0.0, level)
    if ahead <= BLOCKED_M:
        return [0, 0, 2, 0, 0, 0, 0]
    if ahead >= OPEN_M and ahead >= OPEN_SHARE * clear.max():
        return [0, 2, 0, 0, 0, 0, 0]
    half = clear.size // 2
    return [0, 2, 1 if clear[:half].mean() > clear[half:].mean() else 2, 0, 0, 0, 0]


def side_blocked(near: np.ndarray, move_x: int) -> bool:
    """Whether the edge of the view on the side of this strafe (1 left, 2 right) is against something."""
    edge = max(1, round(near.size * 0.15))
    return float((near[:edge] if move_x == 1 else near[-edge:]).min()) < SIDE_BLOCKED_M


def decide(parts: list[dict[str, Any]], level: LevelNumbers | None, use_depth: bool = True) -> list[int] | None:
    """The 7-number arena action from a user message's image parts and the level's numbers, or None when
    it holds no frame or the prompt no level rules. `use_depth=False` (`policy=pixels-flat`, the findings'
    negative control) decodes the depth image it is sent and then plays as if it had none."""
    rgb, depth = frames(parts)
    depth = depth if use_depth else None
    if rgb is None or level is None:
        return None
    view = hsv(rgb[view_rows(rgb.shape[0])])  # the colours of the view, read once for coins and lamps
    seen = coins(view, rgb.shape, depth, level)
    near = standing(depth, level) if depth is not None else None
    clear = clearance(near) if near is not None else None
    if seen:
        target = min(seen, key=lambda b: b.dist_m) if depth is not None else max(seen, key=lambda b: b.bottom)
        action = go_to(target.bearing_deg)
        if clear is not None and target.dist_m is not None and action[1] == 2:
            way = ahead_m(clear, target.bearing_deg, level)
            if way < BLOCKED_M and way < target.dist_m - 0.5:  # a crate or wall before the coin: go round
                action[0] = 1 if target.bearing_deg > 0 else 2
    elif clear is not None:
        action = explore(clear, level)
    else:
        action = list(EXPLORE)
    if (left := lamp_on_left(view, rgb.shape[1])) is not None:
        action[0] = 2 if left else 1  # strafe across the locked turret's line of fire, away from it
        if near is not None and side_blocked(near, action[0]):
            action[0] = 3 - action[0]  # that side is against a crate or wall: the other way still crosses it
    return action
