"""Runs never lose data: declared record schemas, per-episode failures, atomic commits, one run per folder."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from tests.eval.helpers import lines
from tests.helpers import rtarena_cli, run_main

from rtarena.envs.registry import make
from rtarena.eval.episodes import EpisodeJob, Outcome
from rtarena.eval.query import connect, run_query
from rtarena.eval.report import build_report
from rtarena.eval.runner import EXIT_AGENT_FAILED, EXIT_FAILED_EPISODES, exit_code, record, run_jobs
from rtarena.eval.store import write_episode
from rtarena.eval.tables import metric_names
from rtarena.runtime.match import run_match


def cartpole_result(seed: int = 0, steps: int = 20):
    env = make("classic/cartpole-v0")
    try:
        return run_match(env, {"agent_0": lambda obs: 0}, clock="paused", seed=seed, max_steps=steps,
                         env_id="classic/cartpole-v0")
    finally:
        env.close()


def test_event_fields_of_mixed_types_are_written_and_queryable(tmp_path):
    # who killed a player is a player id in one event and a turret number in the next (arena's `by`)
    result = cartpole_result()
    result.events += [{"step": 3, "sim_s": 0.06, "agent": "p2", "type": "death", "cause": "player", "by": "p1"},
                      {"step": 4, "sim_s": 0.08, "agent": "p3", "type": "death", "cause": "turret", "by": 3},
                      {"step": 5, "sim_s": 0.1, "agent": "p3", "type": "hit", "damage": 25.0, "by": None}]
    write_episode(tmp_path, "ep", result)
    _, rows = run_query("SELECT type, \"by\", damage FROM events WHERE type IN ('death', 'hit') ORDER BY step",
                            [tmp_path])
    assert rows == [("death", "p1", None), ("death", "3", None), ("hit", None, "25.0")]


def test_actions_of_mixed_kinds_are_one_text_column(tmp_path):
    result = cartpole_result()
    decisions = list(result.decisions)
    decisions[0] = replace(decisions[0], action="click 3")
    decisions[1] = replace(decisions[1], action={"keys": ["w"]})
    result.decisions = decisions
    write_episode(tmp_path, "ep", result)
    table = pq.read_table(tmp_path / "decisions" / "ep.parquet")
    assert str(table.schema.field("action").type) == "string"
    assert table.column("action").to_pylist()[:3] == ["click 3", '{"keys": ["w"]}', "0"]


def test_an_episode_without_decisions_or_events_keeps_its_columns(tmp_path):
    result = cartpole_result()
    result.decisions, result.events = [], []
    write_episode(tmp_path, "ep", result)
    for view in ("decisions", "events"):
        schema = pq.read_schema(tmp_path / view / "ep.parquet")
        assert "episode" in schema.names and len(schema.names) > 3
    con = connect([tmp_path])
    assert con.execute("SELECT count(*), count(DISTINCT controller) FROM decisions").fetchone() == (0, 0)
    assert build_report([tmp_path], tmp_path / "report").exists()


def test_an_episode_that_cannot_be_recorded_fails_alone(tmp_path):
    job = EpisodeJob("classic/cartpole-v0", ("noop",), "paused", 0, 20)
    good = cartpole_result()
    bad = cartpole_result(seed=1)
    bad.agents["agent_0"]["odd"] = object()  # no column type can hold it
    line = record(tmp_path, "r", job, {"ok": True, "outcome": Outcome(bad, {"agent_0": "noop"})})
    assert line["status"] == "error" and line["error"].startswith("recording failed: ")
    assert not any(tmp_path.glob("*/*.parquet*"))  # nothing of the failed episode is left behind
    other = replace(job, seed=1)
    assert record(tmp_path, "r", other, {"ok": True, "outcome": Outcome(good, {"agent_0": "noop"})})["status"] == "ok"
    assert [line["status"] for line in lines(tmp_path)] == ["error", "ok"]
    assert exit_code(lines(tmp_path)) == EXIT_FAILED_EPISODES


def test_readers_never_see_an_episode_without_its_line(tmp_path):
    write_episode(tmp_path, "committed", cartpole_result(seed=0))
    half = tmp_path / "half"
    write_episode(half, "torn", cartpole_result(seed=1))
    for view in ("agents", "decisions", "steps", "events"):  # its files, but no line: killed mid-commit
        (half / view / "torn.parquet").rename(tmp_path / view / "torn.parquet")
    con = connect([tmp_path])
    for view in ("agents", "decisions", "steps"):
        assert con.execute(f"SELECT list(DISTINCT episode) FROM {view}").fetchone()[0] == ["committed"]


def test_a_second_run_into_the_same_out_is_refused(tmp_path):
    out = tmp_path / "run"
    args = ("run", "classic/cartpole-v0", "--agent", "noop", "--clock", "paused", "--max-steps", "20",
            "--out", str(out))
    assert rtarena_cli(*args).returncode == 0
    before = (out / "episodes.jsonl").read_text()
    again = rtarena_cli(*args, "--seeds", "2")
    assert again.returncode == 2 and "Traceback" not in again.stderr + again.stdout
    message = [ln for ln in again.stdout.splitlines() if ln.strip()]
    assert len(message) == 1 and "--out" in message[0] and "--resume" in message[0]
    assert (out / "episodes.jsonl").read_text() == before
    resumed = rtarena_cli(*args, "--seeds", "2", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert [line["seed"] for line in lines(out)] == [0, 1]


def test_exit_codes_say_whether_every_episode_finished_ok(tmp_path):
    ok = EpisodeJob("classic/cartpole-v0", ("noop",), "paused", 0, 10)
    broken = replace(ok, seed=1, env_kwargs={"no_such_argument": 1})
    run = run_jobs([ok, broken], tmp_path, "r", {}, workers=1)
    assert [line["status"] for line in run.lines] == ["ok", "error"]
    assert run.exit_code == EXIT_FAILED_EPISODES
    assert json.loads((tmp_path / "run.json").read_text())["status"] == "finished"
    dead = {"episode": "e", "status": "ok", "agents": {"p0": {"decisions": 4, "failed_decisions": 4},
                                                       "p1": {"decisions": 4, "failed_decisions": 0}}}
    assert exit_code([dead]) == EXIT_AGENT_FAILED
    assert exit_code([{**dead, "agents": {"p0": {"decisions": 4, "failed_decisions": 3}}}]) == 0


@pytest.mark.parametrize("env_id", ["arena/competitive-v0", "arena/mixed-v0"])
def test_arena_episodes_with_kills_record(tmp_path, env_id):
    # seeds whose events mix player ids and turret numbers in one field (`by` of a death: they crashed the
    # writer); the first 200 steps hold the kills (competitive seed 4: a turret's at step 160), and the CLI
    # runs in this process (the subprocess and its workers are other tests')
    out = tmp_path / "run"
    agents = ["--agent", "heuristic"] if env_id.endswith("mixed-v0") else [
        "--agent", "heuristic", "--agent", "heuristic", "--agent", "random", "--agent", "random"]
    code, output = run_main(["run", env_id, *agents, "--clock", "paused", "--seeds", "6", "--max-steps", "200",
                             "--workers", "1", "--out", str(out)])
    assert code == 0, output
    assert [line["status"] for line in lines(out)] == ["ok"] * 6
    _, rows = run_query("SELECT cause, count(*) FROM events WHERE type = 'death' GROUP BY cause", [out])
    causes = dict(rows)
    assert sum(causes.values()) > 0
    if env_id.endswith("competitive-v0"):
        assert causes.get("player") and causes.get("turret"), causes


def test_report_says_a_run_stopped_early(tmp_path):
    run = run_jobs([EpisodeJob("classic/cartpole-v0", ("noop",), "paused", s, 10) for s in range(3)], tmp_path,
                   "r", {}, workers=1)
    assert run.exit_code == 0
    manifest = json.loads((tmp_path / "run.json").read_text())
    manifest.update(status="running", pid=2**22 + 12345, episodes_total=5)  # a process that no longer exists
    (tmp_path / "run.json").write_text(json.dumps(manifest))
    report = build_report([tmp_path], tmp_path / "report")
    assert "stopped after 3 of 5 episodes" in Path(report).with_suffix(".md").read_text()


def test_a_metric_that_is_null_in_one_episode_stays_numeric_across_episodes(tmp_path):
    quiet = cartpole_result(seed=0)
    quiet.decisions = []
    quiet.agents["agent_0"]["wall_latency_p50_s"] = None  # no decision, no latency
    write_episode(tmp_path, "quiet", quiet)
    write_episode(tmp_path, "busy", cartpole_result(seed=1))
    con = connect([tmp_path])
    kinds = dict(con.execute("SELECT column_name, column_type FROM (DESCRIBE agents)").fetchall())
    assert kinds["wall_latency_p50_s"] == "DOUBLE"
    assert "wall_latency_p50_s" in metric_names(con)
