"""The runner: local pool, failing episodes, resume after SIGKILL, the run folder's self-description."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter

import duckdb
from tests.helpers import rtarena_cli

from rtarena.eval.episodes import EpisodeJob
from rtarena.eval.experiment_file import load_experiment
from rtarena.eval.runner import run_experiment, run_jobs
from rtarena.eval.store import done_keys, read_episodes, repair_tail

from .helpers import RTARENA, cartpole_experiment, comparable, lines


def test_pool_runs_every_episode_once_and_describes_the_run(tmp_path):
    experiment = load_experiment(cartpole_experiment(tmp_path, seeds=3))
    result = run_experiment(experiment, run_id="pool", workers=2)
    run_dir = tmp_path / "runs" / "pool"
    assert result.run_dir == run_dir and result.failed == 0
    episodes = lines(run_dir)
    assert sorted(e["episode"] for e in episodes) == sorted(j.key for j in experiment.jobs())
    assert {e["status"] for e in episodes} == {"ok"}
    assert os.getpid() not in {e["worker"]["pid"] for e in episodes}  # played in the pool's processes
    # the turn-based heuristic balances for the whole episode; 60 ms late it cannot
    by_cell = {(e["lineup"], e["clock_name"]): e["agents"]["agent_0"]["return"] for e in episodes}
    assert by_cell[("heuristic", "turn-based")] == 200.0 and by_cell[("heuristic", "delay-60ms")] < 50
    config = json.loads((run_dir / "config.json").read_text())
    assert config["experiment"]["name"] == "cp" and len(config["jobs"]) == 12
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["versions"]["rtarena"] and manifest["versions"]["python"]
    assert manifest["machine"]["cpu_count"] == os.cpu_count() and manifest["machine"]["memory_bytes"] > 0
    assert manifest["sessions"][0]["backend"] == {"backend": "pool", "workers": 2}
    assert manifest["sessions"][0]["episodes_run"] == 12
    rows = duckdb.connect().execute(
        f"SELECT count(*), count(DISTINCT episode) FROM '{run_dir}/agents/*.parquet'").fetchone()
    assert rows == (12, 12)


def test_a_failing_episode_is_recorded_and_the_rest_go_on(tmp_path):
    good = [EpisodeJob("classic/cartpole-v0", ("random",), "paused", seed, 50) for seed in range(4)]
    bad = [EpisodeJob("classic/cartpole-v0", ("random",), "paused", seed, 50, env_kwargs={"bogus": 1}, label="bad")
           for seed in range(2)]
    run_dir = tmp_path / "run"
    result = run_jobs(good[:2] + bad + good[2:], run_dir, "run", {"name": "t"}, workers=2)
    assert result.failed == 2 and len(result.lines) == 6
    episodes = {e["episode"]: e for e in lines(run_dir)}
    for job in bad:
        assert episodes[job.key]["status"] == "error"
        assert "bogus" in episodes[job.key]["error"] and "Traceback" in episodes[job.key]["traceback"]
    assert all(episodes[job.key]["status"] == "ok" for job in good)
    # a failure is an outcome too: resume does not run it again
    again = run_jobs(good + bad, run_dir, "run", {"name": "t"}, workers=2, resume=True)
    assert again.lines == [] and again.skipped == 6


def test_torn_last_line_is_cut_before_resuming(tmp_path):
    jobs = [EpisodeJob("classic/cartpole-v0", ("noop",), "paused", seed, 30) for seed in range(3)]
    run_dir = tmp_path / "run"
    run_jobs(jobs[:2], run_dir, "run", {"name": "t"}, workers=1)
    with open(run_dir / "episodes.jsonl", "a") as handle:
        handle.write('{"episode": "classic__cartpole-v0__seed00002", "sta')  # killed mid-write
    assert done_keys(run_dir) == {jobs[0].key, jobs[1].key}
    run_jobs(jobs, run_dir, "run", {"name": "t"}, workers=1, resume=True)
    assert repair_tail(run_dir) == 0
    assert [e["episode"] for e in read_episodes(run_dir)] == [j.key for j in jobs]
    assert len((run_dir / "episodes.jsonl").read_text().splitlines()) == 3


def test_sigkill_mid_run_then_resume_gives_every_episode_exactly_once(tmp_path):
    path = cartpole_experiment(tmp_path, name="kill", seeds=10, max_steps=500, agents=("heuristic",))
    total = 20
    run_dir = tmp_path / "runs" / "k"
    process = subprocess.Popen([*RTARENA, "run", str(path), "--run-id", "k", "--workers", "2"], cwd=tmp_path,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        episodes = run_dir / "episodes.jsonl"
        if episodes.exists() and len(episodes.read_bytes().splitlines()) >= 4:
            break
        time.sleep(0.01)
    os.killpg(process.pid, signal.SIGKILL)  # the driver and its pool, at once, mid-run
    process.wait()
    before = len(read_episodes(run_dir))
    assert 4 <= before < total
    done = rtarena_cli("run", str(path), "--resume", "--workers", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"{total - before} episodes ok" in done.stdout.replace("\n", " ")
    keys = Counter(e["episode"] for e in read_episodes(run_dir))
    expected = {job.key for job in load_experiment(path).jobs()}
    assert set(keys) == expected and set(keys.values()) == {1}
    assert len((run_dir / "episodes.jsonl").read_text().splitlines()) == total
    parquet = duckdb.connect().execute(f"SELECT count(*) FROM '{run_dir}/agents/*.parquet'").fetchone()[0]
    assert parquet == total
    # resumed episodes are the same episodes: compare with a clean run of the same experiment
    clean = run_experiment(load_experiment(path), run_id="clean", workers=1)
    reference = {e["episode"]: comparable(e) for e in lines(clean.run_dir)}
    assert {e["episode"]: comparable(e) for e in lines(run_dir)} == reference
    manifest = json.loads((run_dir / "run.json").read_text())
    assert [s["resume"] for s in manifest["sessions"]] == [False, True]
    # a finished run resumed by its folder (from its own config.json) has nothing left to do
    again = rtarena_cli("run", str(run_dir), "--resume", cwd=tmp_path)
    assert again.returncode == 0 and "0 episodes ok" in again.stdout and f"{total} already recorded" in again.stdout
    refused = rtarena_cli("run", str(run_dir), cwd=tmp_path)
    assert refused.returncode == 2 and "add --resume" in refused.stdout


def test_plain_run_resumes_into_its_out_folder(tmp_path):
    out = tmp_path / "latest"
    first = rtarena_cli("run", "classic/cartpole-v0", "--agent", "heuristic", "--clock", "paused", "--seeds", "2",
                        "--max-steps", "50", "--out", str(out))
    assert first.returncode == 0, first.stderr
    more = rtarena_cli("run", "classic/cartpole-v0", "--agent", "heuristic", "--clock", "paused", "--seeds", "4",
                       "--max-steps", "50", "--out", str(out), "--resume", "--workers", "2")
    assert more.returncode == 0, more.stderr
    seeds = [e["seed"] for e in lines(out)]
    assert seeds[:2] == [0, 1] and sorted(seeds[2:]) == [2, 3]  # the resumed two finish in either order
    assert Counter(e["episode"] for e in lines(out)) == Counter(
        f"classic__cartpole-v0__seed{s:05d}" for s in range(4))


def test_episodes_in_this_process_never_start_ray(tmp_path):
    import ray

    assert not ray.is_initialized()
    run_jobs([EpisodeJob("classic/cartpole-v0", ("noop",), "paused", 0, 10)], tmp_path / "run", "run", {"name": "t"},
             workers=1)
    assert not ray.is_initialized()
    assert "ray_node" not in lines(tmp_path / "run")[0]["worker"]
