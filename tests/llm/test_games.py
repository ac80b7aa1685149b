"""A model agent plays a suite game through the real protocol: `rtarena run --agent llm:...` against the
scripted policy server, which answers in the chunked key form."""

from __future__ import annotations

import json
import subprocess
import sys

import duckdb
import pytest


def test_llm_agent_plays_tilefall_to_its_end_in_the_chunked_key_form(server, tmp_path):
    """The text ablation (`modalities=text`): the scripted policy reads the ASCII map; no step cap given."""
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "rtarena.cli", "run", "games/tilefall-v0", "--agent",
                           f"llm:scripted-heuristic@{server.base_url},modalities=text", "--clock", "paused",
                           "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    episode = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    p0 = episode["agents"]["p0"]
    # the game's own end (a fall or its 40 s limit), not the step limit
    assert episode["steps"] <= 400 and (episode["steps"] == 400 or p0["score"] < 1)
    assert p0["invalid_decisions"] == 0 and p0["score"] > 0.25
    rows = duckdb.connect().execute(f"select text, action from '{out}/decisions/*.parquet'").fetchall()
    assert len(rows) == episode["decisions"] and all("ACTION: 0 0 ; " in text for text, _ in rows)
    moved = [a for _, a in rows if any(json.loads(a)["keys"])]
    assert len(moved) > 5


def test_the_server_reads_the_game_prompt_and_answers_a_chunk_the_agent_parses():
    import numpy as np

    from rtarena.agents.llm import LLMAgent
    from rtarena.envs.registry import make
    from rtarena.policy_server.policies import answer
    from rtarena.runtime.clocks import make_clock
    from rtarena.runtime.controllers import build_slots, context_for

    env = make("games/runner2d-v0")
    agent = LLMAgent("scripted-heuristic@http://127.0.0.1:9/v1")  # never called: prompts only
    agent.reset(context_for(build_slots(env, [agent])[0], env, "games/runner2d-v0", 0, make_clock("paused"), 0))
    assert "chunked key form" in agent.system and "A D Space" in agent.system
    env.reset(seed=0)
    env.body["p0"]["x"] = env.platforms[0, 1] - 0.3  # at the edge of the first platform
    text = env.text("p0")
    reply = answer([{"role": "system", "content": agent.system}, {"role": "user", "content": text}], "heuristic")
    parsed = agent.parser.parse(reply)
    assert parsed.valid and len(parsed.chunk) == 2
    assert [sorted(env.keyspace.held(a)) for a in parsed.chunk] == [["D", "Space"], ["D"]]
    assert np.array_equal(parsed.action["keys"], parsed.chunk[0]["keys"])
    agent.close()


def test_a_suite_games_default_model_request_holds_the_frame_and_the_hud_line_not_the_text_view(server):
    """The paper's players see the screen: by default a model agent on a suite game is sent the frame (an image
    part at the game's native size) and the HUD line; `modalities=text` is the ablation without an image."""
    from rtarena.agents.llm import LLMAgent
    from rtarena.envs.registry import make
    from rtarena.runtime.match import run_match

    shapes = {}
    for name, extra in (("default", ""), ("text", ",modalities=text")):
        before = server.requests  # a count, not the kept inputs' length: the server keeps the latest 4096 only
        agent = LLMAgent(f"scripted-heuristic@{server.base_url}{extra}")
        run_match(make("games/tilefall-v0"), [agent], clock="paused", seed=0, max_steps=2)
        shapes[name] = server.inputs[len(server.inputs) - (server.requests - before):]
    assert shapes["default"] and all(any(kind == "image_url" for kind, _ in s) for s in shapes["default"])
    assert shapes["text"] and not any(kind == "image_url" for s in shapes["text"] for kind, _ in s)
    hud_tokens = sum(n for kind, n in shapes["default"][0] if kind == "text")
    text_tokens = sum(n for kind, n in shapes["text"][0] if kind == "text")
    assert hud_tokens < text_tokens / 2  # the HUD line, not the map and the warned tiles' timers


@pytest.mark.parametrize("source", ["client", "server", "endpoint"])
def test_the_measured_clock_charges_the_chosen_latency_and_records_every_latency_seen(server, source):
    """LCRT's latency source is a setting of `measured`: the client's wall time, the stream's time to its last
    token from the response headers (connection set-up left out), or the inference time the endpoint reports
    (the policy server reports llama.cpp-style `timings`). Every decision keeps all three."""
    from rtarena.agents.llm import LLMAgent
    from rtarena.envs.registry import make
    from rtarena.runtime.match import run_match

    agent = LLMAgent(f"scripted-heuristic@{server.url(ttft_s=0.02)}")
    result = run_match(make("games/tilefall-v0", obs=("rgb", "hud")), [agent], clock="measured", latency=source,
                       seed=0, max_steps=3)
    assert result.decisions
    for d in result.decisions:
        seen = {"client": d.wall_latency_s, "server": d.extra["latency_server_s"],
                "endpoint": d.extra["latency_endpoint_s"]}
        assert seen["endpoint"] >= 0.02 and 0 < seen["server"] <= seen["client"]
        assert d.delay_sim_s == pytest.approx(seen[source])
