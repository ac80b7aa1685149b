"""`rtarena play --check` and the play command's bad input: the oracle through the human input path."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from tests.test_bad_input import check_line, run_cli

from rtarena.play.check import GAME_PASS_SCORE, REACTION_S, check_env


def test_the_check_books_the_bike_with_clicks_at_mark_centres_a_reaction_late(tmp_path):
    row = check_env("web/bikedock-v0", out=tmp_path)  # at the task's dt, 1 s
    assert row["success"], row
    decisions = pq.read_table(tmp_path / "decisions").to_pylist()
    acted = [d for d in decisions if d["action"] != "wait()"]
    # the oracle said click(8), click(10): the person's path made them clicks at the marks' centres
    assert [d["action"].split("(")[0] for d in acted] == ["click_xy", "click_xy"], acted
    assert all(d["delay_sim_s"] == pytest.approx(REACTION_S) for d in decisions)
    line = json.loads((tmp_path / "episodes.jsonl").read_text())
    assert line["agent_specs"] == ["human:check-oracle"] and line["clock"]["clock"] == "paused"


def test_the_check_plays_a_game_through_keys_that_land_a_reaction_late(tmp_path):
    row = check_env("games/runner2d-v0", out=tmp_path)  # dt 0.05: a reaction is 5 steps
    steps = pq.read_table(tmp_path / "steps").to_pylist()
    keys = [json.loads(s["actions"])["p0"]["keys"] for s in steps[:40]]
    assert not any(any(k) for k in keys[:5])  # nothing pressed before a reaction time has passed
    assert any(any(k) for k in keys[5:])
    assert row["success"] and row["score"] >= GAME_PASS_SCORE  # the flag, planned a reaction ahead


@pytest.mark.parametrize("argv, words", [
    (["play", "classic/cartpole-v0", "--web"], ["classic/cartpole-v0", "arena, games, web, gui-games"]),
    (["play", "classic/cartpole-v0", "--check"], ["classic/cartpole-v0", "arena, games, web, gui-games"]),
    (["play", "arena/basic-v0", "--check"], ["--check", "games, web, gui-games"]),
    (["play", "games/duel-v0", "--web", "--agent", "human", "--agent", "human"], ["--agent", "once"]),
    (["play", "web/nothing-*", "--check"], ["web/nothing-*", "matches no"]),
    (["run", "--preset", "humans"], ["'human' is a person", "rtarena play --preset humans --web"]),
    (["play", "--preset", "humans"], ["ENV_ID", "--preset NAME with --web"]),
])
def test_play_bad_input_is_one_line(argv, words, capsys):
    check_line(*run_cli(argv, capsys), words)


def test_no_display_says_web_needs_none(capsys, monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    check_line(*run_cli(["play", "arena/basic-v0"], capsys), ["--web", "without one"])


def test_the_humans_preset_is_a_short_session_over_every_family_with_a_human_path():
    from rtarena.envs.registry import env_spec
    from rtarena.eval.presets import load_preset
    from rtarena.play.session import HUMAN_FAMILIES

    experiment = load_preset("humans")
    families = [env_spec(env.id).family for env in experiment.envs]
    assert set(families) == set(HUMAN_FAMILIES) and all(2 <= families.count(f) <= 4 for f in HUMAN_FAMILIES)
    assert [lineup.slots for lineup in experiment.lineups] == [("human",)]
    assert [clock.clock for clock in experiment.clocks] == ["wall"] and experiment.seeds == (0,)


def test_the_page_api_refuses_bad_input_events_and_applies_good_ones():
    import urllib.error
    import urllib.request

    from rtarena.play.session import HumanSession
    from rtarena.play.web import PlayPage

    session = HumanSession.build("games/tilefall-v0")
    page = PlayPage(session).start()
    try:
        def post(body: dict) -> tuple[int, dict]:
            request = urllib.request.Request(page.url + "api/input", json.dumps(body).encode(), method="POST",
                                             headers={"Content-Type": "application/json",
                                                      "X-Rtarena-Token": page.token})
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    return answer.status, json.loads(answer.read())
            except urllib.error.HTTPError as error:
                return error.code, json.loads(error.read())

        assert post({"events": [{"t": "teleport"}]}) == (400, {"error": "event kind 'teleport'; kinds: down, up, "
                                                                       "blur, move, click, key, scroll"})
        assert post({"events": [{"t": "down", "k": "x" * 41}]})[0] == 400
        assert post({"events": [{"t": "move", "dx": "far"}]})[0] == 400
        assert post({"events": "w"})[0] == 400
        assert post({"events": [{"t": "down", "k": "w"}, {"t": "move", "dx": 10, "dy": -5}]})[0] == 200
        assert "w" in session.keyboard.read()[0] and session.keyboard.take_mouse() == (2.0, 1.0)  # 0.2 deg/px
    finally:
        page.stop()
        session.close()
