"""Curve metrics, the best-round rule and the pre-reflection signals."""

from __future__ import annotations

import pytest

from rtarena.improve.metrics import Interval, best_round, curve_metrics, interval
from rtarena.improve.signals import bimodal, round_signals, stagnating, threshold


def test_gains_and_regression_rate_follow_their_formulas():
    scores = [[1, 3], [4, 6], [2, 4], [8, 10]]  # means 2, 5, 3, 9
    m = curve_metrics(scores, rollbacks=[2], count=500)
    assert m["final_gain"]["mean"] == pytest.approx(7.0)
    assert m["auc_gain"]["mean"] == pytest.approx(((5 - 2) + (3 - 2) + (9 - 2)) / 3)
    assert m["regression_rate"] == pytest.approx(1 / 3)
    assert m["rollbacks"] == 1 and m["best_round"] == 3
    assert m["final_gain"]["lo"] <= 7.0 <= m["final_gain"]["hi"]


def test_bootstrap_interval_is_reproducible_and_covers_the_mean():
    a, b = interval([1.0, 2.0, 9.0, 4.0]), interval([1.0, 2.0, 9.0, 4.0])
    assert a == b and a.lo <= a.mean <= a.hi and a.lo >= 1.0 and a.hi <= 9.0
    assert interval([5.0]) == Interval(5.0, 5.0, 5.0, None, 1)


def test_best_round_is_chosen_by_intervals_not_the_raw_argmax():
    noisy = interval([0.0, 0.0, 30.0, 0.0, 0.0, 30.0])  # mean 10, wide
    steady = interval([9.0, 9.5, 9.0, 9.5, 9.0, 9.5])  # mean 9.25, narrow
    assert noisy.mean > steady.mean
    assert best_round([interval([1.0, 1.0]), noisy, steady]) == 2


def test_signals():
    assert threshold(10.0, 0.5) == 5.0 and threshold(-10.0, 0.5) == -15.0
    assert stagnating([1.0, 10.0, 10.5, 10.0]) and not stagnating([8.0, 10.0, 10.5])
    assert bimodal([0, 0, 10, 10]) and not bimodal([0, 5, 10]) and not bimodal([0, 4, 5, 10])
    found = round_signals(3, [1.0, 2.0], [10.0, 20.0, 30.0, 4.0], 30.0, 2, 0.5, "")
    codes = [s.code for s in found]
    assert codes == ["major_regression", "rollback", "empty_skill"]
    assert [s.code for s in round_signals(1, [15.0], [10.0, 15.0], 15.0, 1, 0.5, "- a rule")] == []


def test_the_best_round_can_be_chosen_on_held_out_scores():
    scores = [[1.0, 1.0], [5.0, 5.0], [4.0, 4.0]]
    assert curve_metrics(scores, [], count=200)["best_round"] == 1
    held_out = [[1.0, 1.0], [2.0, 2.0], [6.0, 6.0]]
    chosen = curve_metrics(scores, [], count=200, selection=held_out)
    assert chosen["best_round"] == 2 and chosen["best_round_gain"]["mean"] == pytest.approx(3.0)


def test_variants_are_env_kwargs_arena_rules_or_maps_checked_before_any_episode():
    from rtarena.errors import UserError
    from rtarena.improve.transfer import check_variant, parse_variant

    long = parse_variant("long:length=0.8,force_mag=12", "classic/cartpole-v0")
    assert long.name == "long" and long.kwargs == {"length": 0.8, "force_mag": 12}
    check_variant("classic/cartpole-v0", long)
    far = parse_variant("far:turret.range_m=30,map=procedural:7:maze", "arena/coop-v0")
    assert "turret" in str(far.kwargs) and "procedural:7:maze" in str(far.kwargs)
    with pytest.raises(UserError, match=r"unknown rule 'turret\.nope'"):
        parse_variant("bad:turret.nope=1", "arena/coop-v0")
    with pytest.raises(UserError, match="--variant"):
        check_variant("classic/cartpole-v0", parse_variant("odd:nope=1", "classic/cartpole-v0"))
