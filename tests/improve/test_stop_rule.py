"""Transfer-aware curves and the `peak` stop rule on an offline improvement run made here (scripted player,
reflector and judge behind the real protocol). Round 1 plays the rule "lean" (the pole stays up), round 2
adds the harmful "swing" (it falls at once): the rule stops after round 2, keeps round 1, and every round
also played a held-out variant, which the curve and the leaderboard show beside the source."""

from __future__ import annotations

import json

import pytest
from tests.helpers import run_main
from tests.improve.helpers import role

from rtarena.improve.loop import ImproveRun, Loop
from rtarena.improve.settings import ImproveSettings
from rtarena.improve.transfer import Variant


@pytest.fixture(scope="module")
def run(server, tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("stop") / "peak"
    settings = ImproveSettings(rounds=5, episodes=1, max_steps=60, settle_s=None, holdout_episodes=2,
                               stop_rule="peak", transfer_episodes=1, transfer_every_round=True, frames=0)
    improve = ImproveRun("classic/cartpole-v0", role(server, "skill", "llm:"), role(server, "reflector"),
                         role(server, "judge"), settings, run_dir, (Variant("heavy", {"masspole": 0.3}),))
    run_dir.mkdir(parents=True)
    (run_dir / "improve.json").write_text(json.dumps(improve.to_dict()))
    return run_dir, Loop(improve).run_all()


def test_the_peak_rule_stops_once_a_held_out_round_is_clearly_below_the_best(run):
    run_dir, metrics = run
    assert metrics["stop"]["stopped_after"] == 2 and metrics["stop"]["kept_round"] == 1
    assert not (run_dir / "round_03").exists()  # rounds 3 and 4 were never played
    assert metrics["stop"]["regret"] == 0.0 and metrics["stop"]["regret_last"] > 0
    code, out = run_main(["report", str(run_dir)])
    assert code == 0, out
    assert "Stop rule `peak` stopped after round 2; it keeps round 1" in (run_dir / "report" / "report.md").read_text()


def test_every_round_plays_the_variants_and_the_curve_and_leaderboard_show_both(run):
    run_dir, metrics = run
    rounds = [json.loads((run_dir / f"round_{r:02d}" / "round.json").read_text()) for r in range(3)]
    assert all(list(r["variant_scores"]) == ["heavy"] and len(r["variant_scores"]["heavy"]) == 1 for r in rounds)
    assert [v["n"] for v in metrics["variant_rounds"]] == [1, 1, 1]
    heavy = [r["variant_scores"]["heavy"][0] for r in rounds]
    assert metrics["variant_final_gain"]["mean"] == pytest.approx(heavy[2] - heavy[0])
    assert heavy[1] > heavy[0]  # the lean rule helps on the heavier pole too
    run_main(["report", str(run_dir)])
    assert "variants (mean)" in (run_dir / "report" / "curve.svg").read_text()
    code, out = run_main(["leaderboard", str(run_dir), "--metric", "auc_gain", "--markdown",
                          str(run_dir / "board.md")])
    assert code == 0, out
    row = (run_dir / "board.md").read_text().splitlines()[2].split(" | ")
    assert row[5].startswith(f"{metrics['variant_auc_gain']['mean']:.4g} [")


def test_the_peak_rule_without_held_out_rounds_is_one_line_and_exit_2(tmp_path):
    code, out = run_main(["improve", "classic/cartpole-v0", "--player", "llm:m@http://127.0.0.1:9/v1",
                          "--reflector", "m@http://127.0.0.1:9/v1", "--stop-rule", "peak", "--out", str(tmp_path)])
    assert code == 2 and "holdout_episodes" in out and len(out.strip().splitlines()) == 1, out
    assert not any(tmp_path.iterdir())
