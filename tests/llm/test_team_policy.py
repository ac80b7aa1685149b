"""The scripted team policy (policy_server/arena_team.py): asked for several arena bodies at once, it gives
them distinct coins and its reply grows with the bodies (`plan_tokens` per body, paced like filler tokens),
so a team decision costs n times a single body's under the token clock. The 10-seed sign flip of the
`centralized-vs-decentralized` preset is measured by `rtarena findings` (docs/findings.md)."""

from __future__ import annotations

import json
import time

import numpy as np

from rtarena.agents.llm.client import ChatClient
from rtarena.agents.llm.options import parse_llm_options
from rtarena.agents.specs import parse_spec
from rtarena.envs.arena.observations.report import read_report
from rtarena.envs.registry import make
from rtarena.eval.episodes import controllers_for
from rtarena.policy_server import arena_team, arena_text
from rtarena.runtime import run_match

SYSTEM = "The action space is MultiDiscrete([3, 3, 3, 3, 2, 2, 2])."


def coop_reports(seed: int = 0) -> dict[str, str]:
    env = make("arena/coop-v0")
    obs, _ = env.reset(seed=seed)
    env.close()
    return {a: o["text"] for a, o in obs.items()}


def team_request(texts: dict[str, str]) -> list[dict[str, str]]:
    user = "\n".join(f"### {a}\n{t}" for a, t in texts.items())
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def test_two_bodies_that_see_the_same_coins_are_sent_to_different_ones():
    text = next(t for t in coop_reports().values()
                if sum(s.kind == "coin" for s in read_report(t).in_view) >= 2)
    alone = arena_text.decide(text)
    actions, plans = arena_team.decide_team({"p0": text, "p1": text})  # two bodies in one place
    assert plans["p0"].startswith("coin at") and plans["p1"].startswith("coin at")
    assert plans["p0"].split(";")[0] != plans["p1"].split(";")[0]  # different coins
    assert actions["p0"][:3] == alone[:3]  # the nearest pair keeps the single heuristic's choice
    assert actions["p0"][6] == 1  # the scout keeps its minimap open for the team


def test_the_team_reply_grows_with_its_bodies_and_is_paced(server):
    texts = coop_reports()
    url = server.url(plan_tokens=20, filler_rate=100)
    chat = ChatClient(parse_llm_options(f"scripted-heuristic@{url}"))
    try:
        start = time.monotonic()
        single = chat.complete([{"role": "system", "content": SYSTEM}, {"role": "user", "content": texts["p0"]}])
        single_s = time.monotonic() - start
        start = time.monotonic()
        team = chat.complete(team_request(texts))
        team_s = time.monotonic() - start
    finally:
        chat.close()
    assert single.ok and team.ok
    assert single.reasoning_tokens == 20 and team.reasoning_tokens == 20 * len(texts)
    assert team_s >= 0.75 and single_s >= 0.15  # paced: 80 tokens at 100 per second, against 20
    reply = json.loads(team.text.rsplit("ACTION:", 1)[1])
    assert set(reply) == set(texts)
    assert all(f"- {a}:" in team.text for a in texts)  # one plan line per body


def test_under_the_token_clock_a_team_decision_costs_as_many_times_as_it_has_bodies(server):
    url = server.url(plan_tokens=32)
    delays = {}
    for name, specs in (("team", [f"team:llm:scripted-heuristic@{url}"]),
                        ("alone", [f"llm:scripted-heuristic@{url}"] * 4)):
        env = make("arena/coop-v0")
        controllers = controllers_for(env, [parse_spec(s) for s in specs], "arena")
        result = run_match(env, controllers, clock="token", seed=0, max_steps=8, kappa=128.0)
        env.close()
        delays[name] = float(np.median([d.delay_sim_s for d in result.decisions]))
    # 4 x 32 planning tokens against 32 (plus each reply's own words): the team's action lands later
    assert delays["team"] > 3 * delays["alone"], delays


def test_with_time_free_the_coordinated_team_collects_more_than_independent_bodies():
    """The policy alone (no clock, no server): over four seeds of 20 s on arena/coop-v0, the team policy's
    bodies collect more coins than the same bodies each following the single-body heuristic."""
    totals = {}
    for team in (True, False):
        total = 0.0
        for seed in range(4):
            env = make("arena/coop-v0")
            obs, _ = env.reset(seed=seed)
            for _ in range(80):
                texts = {a: o["text"] for a, o in obs.items()}
                acts = (arena_team.decide_team(texts)[0] if team
                        else {a: arena_text.decide(t) for a, t in texts.items()})
                obs, *_ = env.step({a: np.array(v) for a, v in acts.items()})
                if not obs:
                    break
            total += env.score(0)
            env.close()
        totals[team] = total
    assert totals[True] > totals[False], totals


def test_the_preset_sends_plan_tokens_and_charges_them_under_its_token_clock(server, tmp_path):
    """`centralized-vs-decentralized`: its default endpoint asks the scripted server for plan tokens, and its
    token setting charges every reply at kappa = 128 (a team's four-body reply four times a body's)."""
    from dataclasses import replace

    from rtarena.eval.presets import load_preset
    from rtarena.eval.query import connect
    from rtarena.eval.runner import run_experiment

    preset = load_preset("centralized-vs-decentralized")
    assert "/s/plan_tokens=32/filler_rate=128/v1" in preset.params["base_url"]
    url = server.url(plan_tokens=32)  # the same planning, unpaced: the token clock charges it, not the wall
    experiment = load_preset("centralized-vs-decentralized", params={"base_url": url})
    experiment = replace(experiment, envs=tuple(e for e in experiment.envs if e.id == "arena/coop-v0"),
                         clocks=tuple(c for c in experiment.clocks if c.name == "token"), seeds=(0,), max_steps=4,
                         out=str(tmp_path / "runs"))
    result = run_experiment(experiment, run_id="cvd", workers=1)
    rows = connect([result.run_dir]).execute(
        "SELECT controller, tokens_out, delay_sim_s FROM decisions WHERE delay_sim_s IS NOT NULL").fetchall()
    team = [r for r in rows if r[0].startswith("team(")]
    alone = [r for r in rows if not r[0].startswith("team(")]
    assert team and alone
    assert all(abs(delay - tokens / 128.0) < 1e-6 for _, tokens, delay in rows)  # kappa = 128 reaches the clock
    assert min(t for _, t, _ in team) >= 4 * 32 > max(t for _, t, _ in alone) - 32  # 32 per body it decides for
