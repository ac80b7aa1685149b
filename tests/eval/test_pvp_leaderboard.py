"""PvP ratings where agents are ranked: `rtarena leaderboard --games pvp` prints them beside the score table,
and the dashboard's Compare page (its API over real HTTP) carries them as a panel; both equal the ratings
computed from the run's matches."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from tests.helpers import run_main

from rtarena.dashboard.server import make_app
from rtarena.eval.experiment_file import parse_experiment
from rtarena.eval.pvp import pvp_matches, rate
from rtarena.eval.query import connect
from rtarena.eval.runner import run_experiment


@pytest.fixture(scope="module")
def duel(tmp_path_factory):
    root = tmp_path_factory.mktemp("pvp") / "runs"
    table = {"name": "duel", "out": str(root), "seeds": 1, "max_steps": 50,
             "envs": [{"id": "games/duel-v0", "overrides": {"game": {"time_limit_s": 8.0}}, "lineups": ["pvp"]}],
             "agents": [{"name": "pvp", "pairs": ["heuristic", "random"]}], "clocks": ["paused"]}
    result = run_experiment(parse_experiment(table), run_id="duel", workers=1)
    assert result.failed == 0
    ratings = rate(pvp_matches(connect([result.run_dir])), bootstrap=10)  # point ratings: no intervals needed
    return root, ratings


def test_the_pvp_leaderboard_prints_the_ratings(duel, tmp_path):
    root, ratings = duel
    code, out = run_main(["leaderboard", "--root", str(root), "--games", "pvp", "--markdown", str(tmp_path / "b.md")])
    assert code == 0, out
    board = (tmp_path / "b.md").read_text()
    assert "PvP ratings: 2 matches" in board  # one seed, both seats
    rows = [f"| {r.agent} | 2 | {r.bradley_terry:.0f} | [" for r in ratings.ratings]
    assert all(row in board for row in rows)
    assert board.index(rows[0]) < board.index(rows[1])  # strongest first


def test_the_compare_page_api_carries_the_ratings_panel(duel):
    root, ratings = duel
    with make_app(root) as app:
        request = urllib.request.Request(app.url.rstrip("/") + "/api/compare?runs=duel",
                                         headers={"X-Rtarena-Token": app.token})
        with urllib.request.urlopen(request, timeout=60) as response:
            body = json.loads(response.read())
    panel = next(p for p in body["panels"] if p["title"].startswith("PvP ratings"))
    shown = dict(re.findall(r'data-agent="([^"]+)" data-bt="([^"]+)"', panel["html"]))
    assert {a: float(v) for a, v in shown.items()} == {r.agent: r.bradley_terry for r in ratings.ratings}
    assert "<svg" in panel["html"]  # the dot-and-interval chart
