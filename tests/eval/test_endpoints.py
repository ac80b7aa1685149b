"""Endpoint limits shared by every worker, queue wait apart from latency, cost and error budgets, pools.

The model endpoint is `counting_server.CountingServer` on 127.0.0.1: it answers and counts the requests
in flight at once, which is what a provider's connection limit sees.
"""

from __future__ import annotations

import json
import threading

import duckdb
import pytest
from tests.eval.counting_server import CountingServer
from tests.eval.helpers import lines

from rtarena.agents.llm.client import ChatClient
from rtarena.agents.llm.options import parse_llm_options
from rtarena.errors import UserError
from rtarena.eval.episodes import EpisodeJob
from rtarena.eval.leaderboard import leaderboard, to_markdown
from rtarena.eval.report import build_report
from rtarena.eval.runner import EXIT_AGENT_FAILED, EXIT_MAX_COST, EXIT_MAX_ERRORS, EXIT_OK, RunLimits, run_jobs
from rtarena.policy_server import closed_port_url

HI = [{"role": "user", "content": "hi"}]


def cartpole_jobs(spec: str, n: int, clock: str = "paused", steps: int = 3, slots: int = 1) -> list[EpisodeJob]:
    return [EpisodeJob("classic/cartpole-v0", (spec,) * slots, clock, seed, steps) for seed in range(n)]


def test_a_limit_of_2_holds_across_4_worker_processes_and_queue_wait_and_cost_are_recorded(tmp_path):
    with CountingServer(hold_s=0.25, tokens_in=100, tokens_out=10) as server:
        spec = f"llm:m@{server.url},max_connections=2,price_in=1,price_out=2,timeout=60"
        result = run_jobs(cartpole_jobs(spec, 4, steps=8), tmp_path / "r", "r", {"name": "t"}, workers=4)
        assert result.exit_code == EXIT_OK
        assert server.most == 2  # 4 worker processes asked at once (they waited, below); 2 were let through
    decisions = duckdb.connect().sql(  # a connection of its own: another test's fetchone() leaves the default busy
        f"SELECT queue_wait_s, cost_usd, extra FROM '{tmp_path}/r/decisions/*.parquet'").fetchall()
    assert len(decisions) == 4 * 8
    assert all(cost == pytest.approx((100 * 1 + 10 * 2) / 1e6) for _, cost, _ in decisions)
    assert max(wait for wait, _, _ in decisions) > 0.1  # decisions waited for a slot: the limit was pressed
    for wait, _, extra in decisions:  # the latency is the request's own, the wait apart
        assert json.loads(extra)["queue_wait_s"] == wait and json.loads(extra)["latency_s"] >= 0.25
    for line in lines(tmp_path / "r"):
        assert line["cost_usd"] == pytest.approx(8 * 120 / 1e6)
        assert line["agents"]["agent_0"]["cost_usd"] == pytest.approx(8 * 120 / 1e6)


def test_without_a_limit_the_counting_server_sees_every_request_at_once():
    """The negative control of the test above: the server counts more than 2 when nothing limits them."""
    barrier = threading.Barrier(4)
    with CountingServer(hold_s=0.5) as server:
        client = parse_llm_options(f"m@{server.url},timeout=30")

        def ask() -> None:
            barrier.wait()
            ChatClient(client).complete(HI)

        threads = [threading.Thread(target=ask) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert server.most == 4


def test_a_wall_clock_run_the_limits_cannot_serve_is_refused_in_one_line(tmp_path):
    spec = "llm:m@http://127.0.0.1:9/v1,max_connections=1"
    with pytest.raises(UserError, match=r"puts 2 controllers at once on http://127.0.0.1:9/v1, whose limits serve 1"):
        run_jobs(cartpole_jobs(spec, 1, clock="wall", slots=2), tmp_path / "w", "w", {"name": "t"})
    # the same line-up under a clock that waits queues instead, and a pool of two serves it without queueing
    from rtarena.eval.endpoints import check_wall_capacity, run_limits, wall_caps

    jobs = cartpole_jobs(spec, 1, clock="paused", slots=2)
    check_wall_capacity(jobs, wall_caps(run_limits(jobs)))
    pooled = cartpole_jobs("llm:m@http://127.0.0.1:9/v1|http://127.0.0.1:10/v1,max_connections=1", 1, "wall", 2)
    check_wall_capacity(pooled, wall_caps(run_limits(pooled)))


def test_max_cost_stops_starting_episodes_and_says_so(tmp_path):
    with CountingServer(hold_s=0.0, tokens_in=1000, tokens_out=0) as server:
        spec = f"llm:m@{server.url},price_in=1000"  # 1 USD per decision, 3 per episode
        stopped = run_jobs(cartpole_jobs(spec, 4), tmp_path / "c", "c", {"name": "t"}, workers=1,
                           limits=RunLimits(max_cost=7.0))
        assert len(stopped.lines) == 2  # 3 + 3 spent; a third (3 more) would pass 7
        assert stopped.exit_code == EXIT_MAX_COST and "--max-cost 7" in stopped.stopped
        whole = run_jobs(cartpole_jobs(spec, 4), tmp_path / "d", "d", {"name": "t"}, workers=1,
                         limits=RunLimits(max_cost=12.0))
        assert len(whole.lines) == 4 and whole.exit_code == EXIT_OK and whole.stopped is None
    metric, rows = leaderboard([tmp_path / "d"], root=tmp_path)  # the cost column: USD per episode
    assert rows[0].cost_usd == pytest.approx(3.0) and "| USD / episode |" in to_markdown(metric, rows)


def test_a_measured_run_whose_decisions_waited_says_so_in_its_report(tmp_path):
    with CountingServer(hold_s=0.1) as server:  # adaptive: the limit starts at 1 of its ceiling of 2
        spec = f"llm:m@{server.url},max_connections=2,adaptive=true,price_in=1"
        for clock in ("measured", "paused"):
            run_jobs([EpisodeJob("games/duel-v0", (spec, spec), clock, 0, 4)], tmp_path / clock, clock, {"name": "t"},
                     workers=1)
    waited = (build_report([tmp_path / "measured"], root=tmp_path).parent / "report.md").read_text()
    assert "decisions waited for an endpoint slot under a clock that charges measured time" in waited
    assert "## cost and endpoint queueing" in waited
    paused = (build_report([tmp_path / "paused"], root=tmp_path).parent / "report.md").read_text()
    assert "## cost and endpoint queueing" in paused and "decisions waited" not in paused  # no game time lost


def test_max_errors_fails_a_run_past_its_error_share(tmp_path):
    dead = f"llm:m@{closed_port_url()},retries=0"  # every decision fails: each episode errored
    failed = run_jobs(cartpole_jobs(dead, 4), tmp_path / "e", "e", {"name": "t"}, workers=1,
                      limits=RunLimits(max_errors=0.5))
    assert len(failed.lines) == 3  # the third errored episode is past half of four
    assert failed.exit_code == EXIT_MAX_ERRORS and "3 of 4 episodes errored" in failed.failed_run
    tolerated = run_jobs(cartpole_jobs(dead, 4), tmp_path / "f", "f", {"name": "t"}, workers=1,
                         limits=RunLimits(max_errors=1.0))
    assert len(tolerated.lines) == 4 and tolerated.exit_code == EXIT_AGENT_FAILED


def test_a_pool_drains_a_dead_replica_and_the_decisions_go_on():
    with CountingServer(hold_s=0.0) as live:
        options = parse_llm_options(f"m@{closed_port_url()}|{live.url},max_connections=4,retries=2,timeout=20")
        client = ChatClient(options)
        done = [client.complete(HI) for _ in range(12)]
    assert all(c.ok for c in done)  # every decision answered, by the live replica
    assert {c.base_url for c in done} == {live.url}
    failed = sum(len(c.failed_attempts) for c in done)
    assert 1 <= failed <= 3  # the dead one was tried until drained, then left alone
    assert live.requests == 12


def test_an_error_event_inside_a_stream_is_recorded_with_the_servers_message():
    with CountingServer(hold_s=0.0, stream_error="index out of range in self") as server:
        done = ChatClient(parse_llm_options(f"m@{server.url},retries=0")).complete(HI)
    assert done.error.startswith("stream_cut:") and "index out of range in self" in done.error


@pytest.mark.parametrize("body", [{"detail": "The prompt has 8310 tokens"},  # FastAPI's (transformers serve 5.25)
                                  {"error": {"message": "The prompt has 8310 tokens", "type": "x"}},  # OpenAI's
                                  {"message": "The prompt has 8310 tokens"}])  # vLLM's
def test_a_refusal_is_recorded_with_the_servers_words_whatever_the_bodys_shape(body):
    with CountingServer(hold_s=0.0, status=400, error_body=body) as server:
        done = ChatClient(parse_llm_options(f"m@{server.url},retries=0")).complete(HI)
    assert done.error.startswith("http_400:") and done.error.count("The prompt has 8310 tokens") == 1


class CountingBackend:
    """A backend that runs nothing: it records how many jobs the driver keeps in flight at once."""

    name, workers = "count", 4

    def __init__(self) -> None:
        self.running: list[EpisodeJob] = []
        self.most = 0

    def submit(self, job: EpisodeJob) -> None:
        self.running.append(job)
        self.most = max(self.most, len(self.running))

    def poll(self, timeout: float) -> list:
        return [(self.running.pop(0), {})] if self.running else []


@pytest.mark.parametrize("clock, most", [("wall", 2), ("paused", 4)])
def test_the_driver_runs_no_more_wall_clock_episodes_than_the_connections_serve(clock, most):
    from rtarena.eval.endpoints import run_limits, wall_caps
    from rtarena.eval.runner import drive

    jobs = cartpole_jobs("llm:m@http://127.0.0.1:9/v1,max_connections=2", 6, clock=clock)
    backend = CountingBackend()
    drive(backend, list(jobs), {}, lambda job, payload: None, lambda key: None, wall_caps(run_limits(jobs)))
    assert backend.most == most  # paused: a queued decision loses no game time, so all four workers run


def test_adaptive_connections_back_off_on_429_and_grow_while_the_endpoint_keeps_up_and_rpm_holds():
    from rtarena.agents.llm.limiter import EndpointLimits, Limiter

    limiter, limits = Limiter(), EndpointLimits(max_connections=4, adaptive=True)
    first = [limiter.acquire("e", ("u",), limits, timeout=0.05) for _ in range(3)]
    assert first[2] is None and limiter.stats()["e"]["replicas"]["u"]["limit"] == 2  # starts at half its ceiling
    limiter.release(first[0].ticket, "http_429")
    assert limiter.stats()["e"]["replicas"]["u"]["limit"] == 1  # halved on a 429
    limiter.release(first[1].ticket, "ok")
    assert limiter.stats()["e"]["replicas"]["u"]["limit"] == 2  # a limit's worth of successes: one more
    for _ in range(10):
        limiter.release(limiter.acquire("e", ("u",), limits).ticket, "ok")
    assert limiter.stats()["e"]["replicas"]["u"]["limit"] == 4  # grown to its ceiling, never past it
    budget = EndpointLimits(rpm=2)
    assert [limiter.acquire("r", ("u",), budget, timeout=0.05) is not None for _ in range(3)] == [True, True, False]
