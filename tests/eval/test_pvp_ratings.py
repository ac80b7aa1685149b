"""PvP ratings: Bradley-Terry and Elo with bootstrap intervals, and the non-transitivity score, on
constructed match lists whose answer is known, and from a real PvP run through the report and the CLI."""

from __future__ import annotations

import pytest
from tests.helpers import rtarena_cli

from rtarena.errors import UserError
from rtarena.eval.pvp import Match, rate


def _series(pairs: list[tuple[str, str, float]], times: int) -> list[Match]:
    return [Match("games/duel-v0", a, b, s) for _ in range(times) for a, b, s in pairs]


def test_a_chain_of_wins_is_ordered_with_separated_intervals():
    # A beats B 9 of 10, B beats C 9 of 10, A beats C always: a strict ranking.
    matches = _series([("A", "B", 1.0)] * 9 + [("A", "B", 0.0)] + [("B", "C", 1.0)] * 9 + [("B", "C", 0.0)]
                      + [("A", "C", 1.0)] * 10, 3)
    result = rate(matches, bootstrap=200, seed=1)
    assert [r.agent for r in result.ratings] == ["A", "B", "C"]
    a, b, c = result.ratings
    assert a.bradley_terry_ci[0] > b.bradley_terry_ci[1] and b.bradley_terry_ci[0] > c.bradley_terry_ci[1]
    assert a.elo > b.elo > c.elo
    for r in result.ratings:
        assert r.bradley_terry_ci[0] <= r.bradley_terry <= r.bradley_terry_ci[1]
    assert result.nontransitivity == 0.0 and result.triples == 1


def test_rock_paper_scissors_scores_above_zero_and_rates_everyone_alike():
    matches = _series([("rock", "scissors", 1.0), ("scissors", "paper", 1.0), ("paper", "rock", 1.0),
                       ("rock", "scissors", 0.5)], 10)
    result = rate(matches, bootstrap=200)
    assert result.nontransitivity == 1.0
    assert result.nontransitivity_ci is not None and result.nontransitivity_ci[1] > 0
    spread = max(r.bradley_terry for r in result.ratings) - min(r.bradley_terry for r in result.ratings)
    assert spread < 150  # a cycle has no strongest player: ratings stay close (rock's draws aside)


def test_the_same_seed_gives_the_same_intervals_and_no_matches_is_an_error():
    matches = _series([("A", "B", 1.0), ("A", "B", 0.5), ("B", "A", 1.0)], 4)
    assert rate(matches, bootstrap=50, seed=3) == rate(matches, bootstrap=50, seed=3)
    with pytest.raises(UserError, match="no PvP matches"):
        rate([])


def test_ratings_of_a_run_without_pvp_matches_is_one_line_and_exit_2(tmp_path):
    run = tmp_path / "runs" / "solo"
    run.mkdir(parents=True)
    (run / "episodes.jsonl").write_text("")
    done = rtarena_cli("ratings", "solo", "--root", str(tmp_path / "runs"))
    assert done.returncode == 2
    out = (done.stdout + done.stderr).strip()
    assert "no PvP matches" in out and len(out.splitlines()) == 1
