"""The scripted pixel player (`policy=pixels`, policy_server/arena_pixels.py) behind the real protocol: it
decides from the frame the env renders (no observation text in the request; the level's numbers from the
prompt's level rules, as a model reads them) and turns toward the nearest coin the text report names; and
`media_prefill_s` charges each image before the first token, so it reaches the timing a measured clock
charges. The finding it serves (`rtarena findings --only modality`) is measured in
docs/findings.md."""

from __future__ import annotations

import time

import numpy as np

from rtarena.agents.llm.client import ChatClient
from rtarena.agents.llm.media import image_part
from rtarena.agents.llm.options import parse_llm_options
from rtarena.agents.llm.prompts import observation_parts
from rtarena.agents.specs import parse_spec
from rtarena.envs.arena.observations.report import read_report
from rtarena.envs.registry import make
from rtarena.eval.episodes import controllers_for
from rtarena.policy_server.arena_text import turn_toward
from rtarena.runtime import run_match

SPACE = "The action space is MultiDiscrete([3, 3, 3, 3, 2, 2, 2])."


def system_prompt(**overrides) -> str:
    """The action space and the level rules of arena/basic-v0 (with `overrides`), as a model's prompt has them."""
    env = make("arena/basic-v0", overrides=overrides)
    return f"{SPACE}\n\n### Level rules\n{env.rules_text()}"


SYSTEM = system_prompt()


def ask(url: str, content: list[dict], system: str = SYSTEM) -> tuple[str, float]:
    chat = ChatClient(parse_llm_options(f"scripted-pixels@{url}"))
    try:
        start = time.monotonic()
        reply = chat.complete([{"role": "system", "content": system}, {"role": "user", "content": content}])
        return reply.text, time.monotonic() - start
    finally:
        chat.close()


def test_from_the_frame_alone_it_turns_toward_the_nearest_coin(server):
    env = make("arena/basic-v0", obs=("rgb", "depth", "text"))
    checked = 0
    for seed in range(4):
        obs, _ = env.reset(seed=seed)
        report = read_report(obs["p0"]["text"])
        coins = sorted((s for s in report.in_view if s.kind == "coin"), key=lambda s: s.dist_m)
        if not coins or abs(coins[0].bearing_deg) < 15:
            continue
        parts = observation_parts(obs["p0"], ("rgb", "depth"))  # images only: no text reaches the server
        text, _ = ask(server.url(policy="pixels"), [{"type": "text", "text": "Turn 0."}, *parts])
        assert "pixel player" in text
        action = [int(v) for v in text.rsplit("ACTION:", 1)[1].strip(" []\n").split(",")]
        assert action[2] == turn_toward(coins[0].bearing_deg), (seed, coins[0], action)
        checked += 1
    env.close()
    assert checked >= 2


def test_each_image_costs_prefill_time_and_a_measured_clock_charges_it(server):
    url = server.url(policy="pixels", media_prefill_s=0.2)
    tiny = image_part(np.zeros((4, 4, 3), dtype=np.uint8), size=4)
    _, bare_s = ask(url, [{"type": "text", "text": "Turn 0."}])
    _, two_s = ask(url, [{"type": "text", "text": "Turn 0."}, tiny, tiny])
    assert bare_s < 0.2 <= 0.4 <= two_s, (bare_s, two_s)
    env = make("arena/basic-v0", obs=("rgb",))
    spec = parse_spec(f"llm:scripted-pixels@{url},modalities=rgb")
    result = run_match(env, controllers_for(env, [spec], "arena"), clock="measured", seed=0, max_steps=3)
    env.close()
    assert result.decisions and min(d.delay_sim_s for d in result.decisions) >= 0.2  # one frame per request


# -- what depth adds, on crafted frame pairs (the same frame with and without its depth image) --------------
SIZE = 128
FLOOR_GREY, SKY_GREY = (120, 118, 110), (150, 170, 200)


def scene(lamp_col: int | None = None, lamp_m: float = 10.0, wall_m: float = 50.0):
    """A flat floor under a sky as the arena's camera sees it (basic's eye height, its 90 degree view): the
    colour frame and its depth in metres, a wall across the view at `wall_m`, and a lit turret lamp (the
    palette's red) at `lamp_col` standing `lamp_m` away."""
    rules = make("arena/basic-v0").rules
    assert rules.players.fov_deg == 90.0
    eye_m = rules.players.eye_height_m
    rgb = np.empty((SIZE, SIZE, 3), dtype=np.uint8)
    depth = np.full((SIZE, SIZE), 60.0, dtype=np.float32)
    rows = np.arange(SIZE)
    below = (rows + 0.5 - SIZE / 2) / (SIZE / 2)  # tan of the angle below the horizon (90 degree view)
    floor = np.where(below > 0, eye_m / np.maximum(below, 1e-6), np.inf)
    wall = below > -(3.0 - eye_m) / wall_m  # the wall's rows: from its top down to where it meets the floor
    depth[wall] = np.minimum(floor[wall], wall_m)[:, None]
    rgb[:] = SKY_GREY
    rgb[below > 0] = FLOOR_GREY
    if lamp_col is not None:
        rgb[60:66, lamp_col:lamp_col + 4] = (235, 40, 40)
        depth[60:66, lamp_col:lamp_col + 4] = lamp_m
    return rgb, depth


def act(server, rgb, depth=None, system: str = SYSTEM) -> list[int]:
    from rtarena.agents.llm.media import depth_part

    parts = [image_part(rgb, 256)] + ([depth_part(depth, 256)] if depth is not None else [])
    text, _ = ask(server.url(policy="pixels"), [{"type": "text", "text": "Turn 0."}, *parts], system)
    assert "pixel player" in text, text
    return [int(v) for v in text.rsplit("ACTION:", 1)[1].strip(" []\n").split(",")]


def test_with_depth_it_runs_down_an_open_way_and_turns_from_a_wall_it_would_otherwise_circle(server):
    rgb, depth = scene()  # nothing in view, the floor open 50 m ahead
    assert act(server, rgb) == [0, 2, 2, 0, 0, 0, 0]  # frame only: the exploring circle
    assert act(server, rgb, depth) == [0, 2, 0, 0, 0, 0, 0]  # depth: the way is open, run straight down it
    rgb, depth = scene(wall_m=1.5)
    assert act(server, rgb) == [0, 2, 2, 0, 0, 0, 0]  # the frame alone cannot tell the wall is close
    assert act(server, rgb, depth) == [0, 0, 2, 0, 0, 0, 0]  # depth: turn on the spot, not into the wall


def test_it_strafes_from_a_lit_lamp_with_or_without_depth_and_depth_picks_the_open_side(server):
    right = SIZE - 12  # a locked turret's lamp about 40 degrees to the right
    rgb, depth = scene(lamp_col=right, lamp_m=12.0)
    assert act(server, rgb)[0] == 1  # frame only: strafe left, away from it
    assert act(server, rgb, depth)[0] == 1  # depth: the same dodge, near or far (docs/findings.md: modality)
    depth[64:, :20] = 1.0  # a crate 1 m away at the left edge of the view
    assert act(server, rgb)[0] == 1 and act(server, rgb, depth)[0] == 2  # depth: strafe to the open side


def test_without_level_rules_in_the_prompt_it_is_not_the_pixel_player(server):
    rgb, _ = scene()
    text, _ = ask(server.url(policy="pixels"), [{"type": "text", "text": "Turn 0."}, image_part(rgb, 256)], SPACE)
    assert "pixel player" not in text and "ACTION:" in text  # the heuristic's fallback answer


def test_a_flat_band_of_coin_colour_is_not_a_coin(server):
    from rtarena.envs.arena.render.palette import COIN_RGB

    rgb, _ = scene()
    rgb[78:86, 20:28] = COIN_RGB  # a coin's disc (as tall as wide) to the left
    assert act(server, rgb)[2] == 1  # turns left toward it
    rgb, _ = scene()
    rgb[80:82, 20:44] = COIN_RGB  # an ammo box's band: twelve times wider than tall
    assert act(server, rgb) == [0, 2, 2, 0, 0, 0, 0]  # no coin: it explores
