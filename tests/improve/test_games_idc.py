"""IDC on a paper's IDC game, offline: `policy=skill` plays tilefall from its text view with the behaviours its
skill names (the game's rulebook in `skill_rules.toml`; with none, the project's text stand-in), the scripted
reflector reads the round's step tables and adds the rule whose evidence is most frequent, one rule of each
rulebook harmful on purpose.

Measured, not scripted: round 0 (the cold start) is beaten by a rulebook skill, a harmful rule makes a later
round regress below half of the best, and the runner rolls back (or, in the last round, flags it). Kept cheap:
4 rounds of 2 episodes on a shortened game (`game.time_limit_s`, named below), one transfer episode per
variant and condition; docs/improve.md has the full-size numbers and the command. The paper's other IDC game,
kitchen (co-op, about twice tilefall's cost here), runs through the same loop in CI's `make findings`, where
`rtarena findings --only idc` gates its held-out gain against its controls (docs/findings.md); the loop's
arithmetic is tests/improve/test_loop.py's.
"""

from __future__ import annotations

import json

import pytest
from tests.improve.helpers import role

from rtarena.improve.loop import ImproveRun, Loop
from rtarena.improve.settings import ImproveSettings
from rtarena.improve.transfer import Variant

# the short version the test plays (the full game: 40 s)
SHORT = {"tilefall": {"game.time_limit_s": 20.0}}
# transfer on every tilefall variant (the paper's transfer pattern is tilefall's)
VARIANTS = {"tilefall": ("var1", "var2", "var3")}


@pytest.fixture(scope="module", params=sorted(SHORT))
def idc(request, server, tmp_path_factory):
    game = request.param
    run_dir = tmp_path_factory.mktemp("idc") / game
    settings = ImproveSettings(rounds=4, episodes=2, transfer_episodes=1, bootstrap=500, frames=0)  # no video
    improve = ImproveRun(f"games/{game}-v0", role(server, "skill", "llm:") + ",modalities=text",
                         role(server, "reflector"), role(server, "judge"), settings, run_dir,
                         tuple(Variant(v, {"variant": v}) for v in VARIANTS[game]),
                         {"overrides": SHORT[game]})
    run_dir.mkdir(parents=True)
    (run_dir / "improve.json").write_text(json.dumps(improve.to_dict()))
    return game, run_dir, Loop(improve).run_all()


def test_a_skill_from_the_games_rulebook_gains_a_harmful_one_rolls_back_and_transfer_is_reported(idc):
    game, run_dir, metrics = idc
    means = [r["mean"] for r in metrics["rounds"]]
    best = metrics["best_round"]
    assert best > 0 and metrics["best_round_gain"]["lo"] > 0, (game, means, metrics["best_round_gain"])
    assert metrics["rollbacks"] >= 1 and any(m < 0.5 * max(means[:r]) for r, m in enumerate(means) if r), (game, means)
    skills = [(run_dir / f"round_{r:02d}" / "skill_in.md").read_text() for r in range(4)]
    assert skills[0] == "" and skills[best] != ""
    transfer = json.loads((run_dir / "transfer.json").read_text())["variants"]
    assert [row["variant"] for row in transfer] == list(VARIANTS[game])
    assert all(row["with_n"] == row["without_n"] == 1 for row in transfer)
