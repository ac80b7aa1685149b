"""`rtarena improve-analyse` on an improvement run made here (scripted player, reflector and judge behind the
real protocol; round 1 plays the rule "lean", round 2 adds the harmful "swing"). Adherence: a player that
ignores its skill changes ~0 % of its actions, one that follows it changes some. Attribution: leaving the
harmful bullet out raises the score. A run that is not an improvement run, and a one-bullet skill, are one
line and exit 2."""

from __future__ import annotations

import json

import pytest
from tests.helpers import run_main
from tests.improve.helpers import role

from rtarena.improve.adherence import cites
from rtarena.improve.loop import ImproveRun, Loop
from rtarena.improve.settings import ImproveSettings


@pytest.fixture(scope="module")
def run_dir(server, tmp_path_factory):
    return improvement_run(server, tmp_path_factory.mktemp("analyse"), "skill")


def improvement_run(server, folder, player: str):
    run_dir = folder / player
    settings = ImproveSettings(rounds=3, episodes=1, max_steps=60, settle_s=None, frames=0)
    run = ImproveRun("classic/cartpole-v0", role(server, player, "llm:"), role(server, "reflector"),
                     role(server, "judge"), settings, run_dir)
    run_dir.mkdir(parents=True)
    (run_dir / "improve.json").write_text(json.dumps(run.to_dict()))
    Loop(run).run_all()
    return run_dir


def test_a_player_that_follows_its_skill_changes_actions_one_that_ignores_it_does_not(server, run_dir, tmp_path):
    shares = {}  # the scripted skill player reads only its skill notes
    for player in ("skill", "heuristic"):  # the scripted heuristic never reads the skill notes
        code, out = run_main(["improve-analyse", str(run_dir), "--adherence", "--out", str(tmp_path / player),
                              *(["--player", role(server, player, "llm:")] if player != "skill" else [])])
        assert code == 0, out
        rows = json.loads((tmp_path / player / "adherence.json").read_text())
        assert [r["round"] for r in rows] == [1, 2] and rows[0]["decisions"] > 5 and rows[0]["bullets"] == 1
        assert (tmp_path / player / "adherence.svg").read_text().startswith("<svg")
        shares[player] = rows[0]["changed"]
    assert shares["heuristic"] == 0.0  # the same action with and without the skill, every time
    assert shares["skill"] > 0.0  # round 0's empty skill holds the default; round 1's rule pushes


def test_not_an_improvement_run_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "plain").mkdir()
    code, out = run_main(["improve-analyse", str(tmp_path / "plain"), "--adherence"])
    assert code == 2 and "not an improvement run" in out and len(out.strip().splitlines()) == 1, out
    assert not (tmp_path / "plain" / "analysis").exists()


def test_a_reply_cites_a_bullet_by_quoting_four_words_of_it():
    bullet = ["Push the cart toward the side the pole leans: a pole leaning right needs a push right."]
    assert cites("I push toward the SIDE the pole leans, so right.", bullet)
    assert not cites("Push right (rules: lean).", bullet)


def test_attribution_finds_the_harmful_bullet_and_refuses_a_one_bullet_skill(run_dir):
    code, out = run_main(["improve-analyse", str(run_dir), "--attribution"])  # the best round: "lean" alone
    assert code == 2 and "has 1 bullet(s)" in out and len(out.strip().splitlines()) == 1, out
    code, out = run_main(["improve-analyse", str(run_dir), "--attribution", "--round", "2", "--episodes", "2"])
    assert code == 0, out
    rows = json.loads((run_dir / "analysis" / "attribution.json").read_text())
    assert [("lean" in r["bullet"], "swing" in r["bullet"]) for r in rows] == [(True, False), (False, True)]
    swing = rows[1]
    assert swing["n"] == 2 and swing["effect"] < 0 and swing["hi"] < 0  # without it the pole stays up longer
    assert all(r["lo"] <= r["effect"] <= r["hi"] for r in rows)
    assert "| 2 |" in (run_dir / "analysis" / "attribution.md").read_text()
    assert (run_dir / "analysis" / "attribution.svg").read_text().startswith("<svg")
