"""The scripted pixel player (`policy=pixels`, policy_server/arena_pixels.py) behind the real protocol: it
decides from the frame the env renders (no text in the request) and turns toward the nearest coin the text
report names; and `media_prefill_s` charges each image before the first token, so it reaches the timing a
measured clock charges. The finding it serves (`rtarena findings --only modality`) is measured in
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

SYSTEM = "The action space is MultiDiscrete([3, 3, 3, 3, 2, 2, 2])."


def ask(url: str, content: list[dict]) -> tuple[str, float]:
    chat = ChatClient(parse_llm_options(f"scripted-pixels@{url}"))
    try:
        start = time.monotonic()
        reply = chat.complete([{"role": "system", "content": SYSTEM}, {"role": "user", "content": content}])
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
