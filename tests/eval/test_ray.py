"""The same experiment on a Ray cluster (a head and a worker node started here) and on the local pool.

The cluster lives in a network namespace of its own (`unshare -n`, `lo` up) so that all of Ray's traffic
stays on loopback; every Ray process gets the same `RAY_AUTH_MODE` and usage stats off; one cluster is
shared by the tests of this module (starting one takes about 10 s here).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from rtarena.eval.experiment_file import load_experiment
from rtarena.eval.runner import run_experiment

from .helpers import RTARENA, cartpole_experiment, comparable, lines

HARNESS = Path(__file__).with_name("ray_harness.py")


class Cluster:
    """Talks to `ray_harness.py`: each command runs inside the cluster's network namespace."""

    def __init__(self) -> None:
        self.temp = tempfile.mkdtemp(prefix="rtr-", dir="/tmp")  # socket paths must stay short
        env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
        self.process = subprocess.Popen(["unshare", "-n", sys.executable, str(HARNESS), self.temp],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        ready = self.process.stdout.readline().split()
        if not ready or ready[0] != "READY":
            self.close()
            raise RuntimeError(f"the Ray cluster did not start: {ready}")
        self.address = ready[1]

    def run(self, *argv: str) -> dict:
        self.process.stdin.write(json.dumps(list(argv)) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=120)
        shutil.rmtree(self.temp, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster():
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.fail("the Ray tests need root and unshare(1) to give the cluster its own network namespace")
    started = Cluster()
    yield started
    started.close()


def test_forty_episodes_on_ray_resume_a_partial_run_and_equal_the_local_pool(cluster, tmp_path):
    """The local pool runs the forty episodes; a Ray run is handed the first four of them and a torn line (an
    earlier run that died) and `--resume`s: it keeps the four, runs the other 36, and every record equals the
    pool's."""
    path = cartpole_experiment(tmp_path, name="forty", seeds=10, max_steps=200)  # 2 agents x 2 clocks x 10
    local = run_experiment(load_experiment(path), run_id="local", workers=2)
    ray_dir = tmp_path / "runs" / "ray"
    ray_dir.mkdir()
    kept = (local.run_dir / "episodes.jsonl").read_text().splitlines()[:4]
    (ray_dir / "episodes.jsonl").write_text("\n".join(kept) + "\n" + '{"episode": "torn')
    done = cluster.run(*RTARENA, "run", str(path), "--ray", cluster.address, "--run-id", "ray", "--resume")
    assert done["rc"] == 0, done["stdout"] + done["stderr"]
    on_ray = {e["episode"]: e for e in lines(ray_dir)}
    on_pool = {e["episode"]: e for e in lines(local.run_dir)}
    assert len(on_ray) == len(on_pool) == 40 and len(lines(ray_dir)) == 40  # each episode exactly once
    assert {k: comparable(e) for k, e in on_ray.items()} == {k: comparable(e) for k, e in on_pool.items()}
    assert all(on_ray[k]["records_sha256"] == on_pool[k]["records_sha256"] for k in on_pool)
    backend = json.loads((ray_dir / "run.json").read_text())["sessions"][-1]["backend"]
    assert backend["backend"] == "ray" and backend["nodes"] == 2 and backend["cluster_cpus"] == 2
    ran_on_ray = [e for e in on_ray.values() if e["worker"].get("ray_node")]
    assert len(ran_on_ray) == 36  # the four kept lines are the pool's


WALL_PAIR = """
name = "pair"
seeds = 2
max_steps = 1000
out = "{out}"
agents = ["heuristic"]

[[envs]]
id = "classic/cartpole-v0"
kwargs = {{ max_episode_steps = 1000 }}

[[clocks]]
name = "wall-20ms"
clock = "wall"
dt = 0.02
"""


# Waits until the cluster shows both CPUs free: a node whose CPU is still leased to the last run's workers
# (their clean-up is slow under load) would queue the second episode behind the first.
BOTH_FREE = """
import sys, time, ray
ray.init(address=sys.argv[1], log_to_driver=False)
deadline = time.monotonic() + 60
while ray.available_resources().get("CPU", 0) < 2 and time.monotonic() < deadline:
    time.sleep(0.2)
print(ray.available_resources().get("CPU", 0))
"""


def test_two_long_episodes_at_once_run_on_both_nodes(cluster, tmp_path):
    """Two wall-clock episodes of 20 s each (the heuristic holds the pole all 1000 steps of 20 ms at seeds 0
    and 1) on two one-CPU nodes: the second cannot wait for the first, so they run at once, one per node.
    Short episodes prove nothing here: Ray hands queued tasks to the worker it already leased, so forty
    50 ms episodes may all finish on the head before the other node's worker has started. Each new driver
    starts its own workers, and under a loaded `make test` the second node's took 4-13 s (episodes of 3.8 s,
    6 s and 10 s were too short), so the episodes wait on real time, not on the CPU, for 20 s.
    The proof is the placement, not the start times: a busy CI machine once took over 20 s to start the second
    node's worker, so that episode began 0.7 s after the first ended. Ray placed it on the other node while the
    head's one CPU was leased; had it been queued behind the first, the head's leased worker would have run it."""
    path = tmp_path / "pair.toml"
    path.write_text(WALL_PAIR.format(out=tmp_path / "runs"))
    free = cluster.run(sys.executable, "-c", BOTH_FREE, cluster.address)
    assert free["rc"] == 0 and float(free["stdout"].split()[-1]) == 2, free
    done = cluster.run(*RTARENA, "run", str(path), "--ray", cluster.address, "--run-id", "pair")
    assert done["rc"] == 0, done["stdout"] + done["stderr"]
    episodes = lines(tmp_path / "runs" / "pair")
    assert [e["status"] for e in episodes] == ["ok", "ok"]
    first, second = sorted((e["worker"] for e in episodes), key=lambda w: w["started_unix_s"])
    assert first["ray_node"] != second["ray_node"], (first, second)  # at once, so on two nodes
