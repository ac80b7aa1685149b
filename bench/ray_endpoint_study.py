"""The endpoint study on Ray (issue 45): many short `llm:` episodes on a two-node Ray cluster against a pool of
three policy servers, one injecting 429s, one 5xx, the third killed mid-run; the driver itself is killed
mid-run and the run resumed. Prints (and writes to OUT/study-summary.json) episodes per hour, decisions per
second, the queue-wait distribution, the failures by kind, the requests each replica served, and whether every
episode is recorded exactly once.

Run it in a network namespace of its own, so that all of Ray's traffic stays on loopback:

    unshare -n python bench/ray_endpoint_study.py --episodes 1000 --out /tmp/ray-study

The two Ray nodes are separate node processes (`ray start`, one CPU each) in that one namespace, not one
namespace per node as on a real cluster; the policy servers are `rtarena serve-policy` (scripted, not models).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

BIN = Path(sys.executable).parent
PORTS = (18101, 18102, 18103)
RAY_PORT = 6399
EXPERIMENT = """
name = "study"
seeds = {episodes}
max_steps = {steps}
out = "{out}"
envs = ["classic/cartpole-v0"]
agents = ["llm:scripted-heuristic@{pool},max_connections=2,retries=4,timeout=60"]

[[clocks]]
name = "turn-based"
clock = "paused"
"""


def lines(run_dir: Path) -> list[dict]:
    path = run_dir / "episodes.jsonl"
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip().endswith("}")]


def wait_for(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError as error:
            if getattr(error, "code", None):  # any HTTP answer: the server is up
                return
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("/tmp/ray-study"))
    parser.add_argument("--kill-replica-at", type=float, default=0.25, help="share of episodes recorded")
    parser.add_argument("--kill-driver-at", type=float, default=0.5, help="share of episodes recorded")
    args = parser.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False)
    ray = str(BIN / "ray")
    common = ["--num-cpus=1", "--object-store-memory=80000000", "--node-ip-address=127.0.0.1", "--disable-usage-stats"]
    servers = []
    try:
        temp = tempfile.mkdtemp(prefix="rtr-", dir="/tmp")  # Ray's socket paths must stay short
        for argv in ([ray, "start", "--head", f"--port={RAY_PORT}", f"--temp-dir={temp}", "--include-dashboard=false",
                      *common], [ray, "start", f"--address=127.0.0.1:{RAY_PORT}", *common]):
            started = subprocess.run(argv, env=env, capture_output=True, text=True)
            if started.returncode:
                sys.exit(f"{' '.join(argv[:2])} failed: {started.stderr[-2000:]}")
        for port in PORTS:
            servers.append(subprocess.Popen([str(BIN / "rtarena"), "serve-policy", "--port", str(port)], env=env,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for port in PORTS:
            wait_for(f"http://127.0.0.1:{port}/v1/models")
        pool = "|".join([f"http://127.0.0.1:{PORTS[0]}/s/fault=http_429/fault_every=10/v1",
                         f"http://127.0.0.1:{PORTS[1]}/s/fault=http_500/fault_every=10/v1",
                         f"http://127.0.0.1:{PORTS[2]}/v1"])
        path = out / "study.toml"
        path.write_text(EXPERIMENT.format(episodes=args.episodes, steps=args.steps, out=out / "runs", pool=pool))
        run_dir = out / "runs" / "study"
        address = f"127.0.0.1:{RAY_PORT}"
        started = time.time()
        driver = subprocess.Popen([str(BIN / "rtarena"), "run", str(path), "--ray", address, "--run-id", "study"],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        killed_replica = killed_driver = None
        while driver.poll() is None:
            done = len(lines(run_dir))
            if killed_replica is None and done >= args.kill_replica_at * args.episodes:
                servers[2].send_signal(signal.SIGKILL)
                killed_replica = done
            if done >= args.kill_driver_at * args.episodes:
                driver.send_signal(signal.SIGKILL)
                driver.wait()
                killed_driver = len(lines(run_dir))
                break
            time.sleep(0.2)
        first_session_s = time.time() - started
        resumed = time.time()
        again = subprocess.run([str(BIN / "rtarena"), "run", str(run_dir), "--resume", "--ray", address], env=env,
                               capture_output=True, text=True)
        resume_s = time.time() - resumed
        summary = analyse(run_dir, args.episodes, first_session_s + resume_s)
        summary.update(killed_replica_after=killed_replica, killed_driver_after=killed_driver,
                       resume_exit=again.returncode, first_session_s=first_session_s, resume_session_s=resume_s,
                       resume_tail=again.stderr[-400:])
        (out / "study-summary.json").write_text(json.dumps(summary, indent=2))
        print(json.dumps(summary, indent=2))
    finally:
        for server in servers:
            server.kill()
        subprocess.run([ray, "stop", "--force"], env=env, capture_output=True)


def analyse(run_dir: Path, episodes: int, wall_s: float) -> dict:
    import duckdb

    recorded = lines(run_dir)
    keys = [line["episode"] for line in recorded]
    decisions = f"'{run_dir}/decisions/*.parquet'"
    (count, waited, p50, p90, p99, most) = duckdb.sql(
        f"SELECT count(*), count(*) FILTER (WHERE queue_wait_s > 0.001), quantile_cont(queue_wait_s, 0.5), "
        f"quantile_cont(queue_wait_s, 0.9), quantile_cont(queue_wait_s, 0.99), max(queue_wait_s) FROM {decisions}"
    ).fetchall()[0]
    replicas = dict(duckdb.sql(f"SELECT coalesce(json_extract_string(extra, '$.base_url'), '?') AS u, count(*) "
                               f"FROM {decisions} GROUP BY u ORDER BY u").fetchall())
    failed_attempts = duckdb.sql(f"SELECT json_extract_string(a.value, '$') AS kind, count(*) FROM {decisions}, "
                                 "json_each(json_extract(extra, '$.failed_attempts')) a GROUP BY kind").fetchall()
    errors = dict(duckdb.sql(f"SELECT split_part(error, ':', 1), count(*) FROM {decisions} WHERE error IS NOT NULL "
                             "GROUP BY ALL").fetchall())
    return {
        "episodes_planned": episodes, "episodes_recorded": len(recorded), "distinct_episodes": len(set(keys)),
        "episodes_ok": sum(line.get("status") == "ok" for line in recorded),
        "decisions": count, "decisions_failed": errors, "failed_attempts_retried": dict(failed_attempts),
        "decisions_per_replica": replicas, "wall_s": wall_s, "episodes_per_hour": len(recorded) / wall_s * 3600,
        "decisions_per_s": count / wall_s, "queue_wait": {"waited": waited, "p50_s": p50, "p90_s": p90,
                                                           "p99_s": p99, "max_s": most},
    }


if __name__ == "__main__":
    main()
