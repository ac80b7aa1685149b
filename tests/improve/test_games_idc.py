"""IDC on the paper's two IDC games, offline: `policy=skill` plays tilefall and kitchen from their text view
with the behaviours its skill names (the game's rulebook in `skill_rules.toml`; with none, the project's text
stand-in), the scripted reflector reads the round's step tables and adds the rule whose evidence is most
frequent, one rule of each rulebook harmful on purpose.

Measured, not scripted: round 0 (the cold start) is beaten by a rulebook skill, a harmful rule makes a later
round regress below half of the best, and the runner rolls back (or, in the last round, flags it). Kept cheap:
4 rounds of 2 episodes on shortened games (`game.time_limit_s`, named below), one transfer episode per
variant and condition (tilefall's three variants, kitchen's first); docs/improve.md has the full-size numbers
and the command; the held-out gain against controls is `rtarena findings --only idc` (docs/findings.md).
"""

from __future__ import annotations

import json

import pytest
from tests.improve.helpers import role

from rtarena.improve.loop import ImproveRun, Loop
from rtarena.improve.settings import ImproveSettings
from rtarena.improve.transfer import Variant

# the short versions the test plays (the full games: 40 s and 60 s); kitchen's target scaled with its time
SHORT = {"tilefall": {"game.time_limit_s": 20.0},
         "kitchen": {"game.time_limit_s": 18.0, "orders.target_points": 4}}
# transfer on every tilefall variant (the paper's transfer pattern is tilefall's); kitchen's one variant shows the
# rows come for a co-op game too (the transfer arithmetic itself: tests/improve/test_loop.py)
VARIANTS = {"tilefall": ("var1", "var2", "var3"), "kitchen": ("var1",)}


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
