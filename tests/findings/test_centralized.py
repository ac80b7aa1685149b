"""The centralized finding's token-rule negative control: decentralized bodies padded with reasoning filler
to the team's tokens per decision (`catalog.padding`), measured in a real token-clock run of the preset
through the scripted policy server (a short one: the padding is a count of tokens, not a score)."""

from __future__ import annotations

import statistics

from rich.console import Console

from rtarena.findings.catalog import PLAN_TOKENS, padding, per_seed, run_preset
from rtarena.findings.core import Context
from rtarena.policy_server.server import PolicyServer

STEPS = 12  # three seconds of arena/coop-v0: a dozen decisions per body


def tokens_per_decision(run_dir, lineup: str) -> float:
    tokens, decisions = (per_seed(run_dir, metric, clock_name="token", lineup=lineup)
                         for metric in ("tokens_out", "decisions"))
    return statistics.fmean(tokens[s] / decisions[s] for s in tokens)


def test_padded_bodies_write_what_the_team_writes_per_decision(tmp_path):
    with PolicyServer() as server:
        ctx = Context(True, tmp_path, server, 1, Console(stderr=True, quiet=True))

        def run(label: str, url: str, lineups: tuple[str, ...]):
            return run_preset(ctx, "centralized-vs-decentralized", label, params={"base_url": url},
                              envs=("arena/coop-v0",), lineups=lineups, clocks=("token",), quick_seeds=1,
                              quick_steps=STEPS, max_steps=STEPS)[0]

        main = run("main", server.url(plan_tokens=PLAN_TOKENS), ("decentralized", "centralized"))
        pad = padding(main)
        padded = run("padded", server.url(plan_tokens=PLAN_TOKENS, filler_tokens=pad), ("decentralized",))
    team, bodies = tokens_per_decision(main, "centralized"), tokens_per_decision(main, "decentralized")
    # the team writes a plan line and an action per body: a reply several bodies long
    assert team > 2 * bodies and pad == round(team - bodies)
    # the negative control: the padded bodies' decisions cost what the team's do; unpadded, they did not
    assert abs(tokens_per_decision(padded, "decentralized") - team) <= 1.0 < team - bodies
