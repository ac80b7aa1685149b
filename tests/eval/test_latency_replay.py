"""The latency-replay clock: a run made here against the scripted policy server (a real HTTP server with a
time to first token) leaves a latency trace; two replays of it with a deterministic agent are
byte-identical and charge the trace's latencies; a trace without latencies is one line and exit 2."""

from __future__ import annotations

import statistics

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.helpers import run_main

from rtarena.errors import UserError
from rtarena.eval.report import build_report
from rtarena.policy_server import PolicyServer
from rtarena.runtime.clocks import make_clock
from rtarena.runtime.latency_trace import TRACE_FILE, DrawKey, load_trace

from .helpers import lines


def rtarena_cli(*argv: str) -> tuple[int, str]:
    return run_main(list(argv))

ENV = "games/tilefall-v0"


@pytest.fixture(scope="module")
def trace_run(tmp_path_factory):
    """A run of the scripted player (not a model) over HTTP, 300 ms to its first token (above the noise of
    a loaded machine). Paused, so that it decides at every step however slow the machine is: the trace keeps
    wall latencies under any clock."""
    out = tmp_path_factory.mktemp("trace") / "paid"
    with PolicyServer() as server:
        done = rtarena_cli("run", ENV, "--agent", f"llm:scripted-heuristic@{server.url(ttft_s=0.3)}",
                           "--clock", "paused", "--max-steps", "10", "--out", str(out))
    assert done[0] == 0, done[1]
    return out


def test_every_run_writes_a_latency_trace(trace_run):
    rows = pq.read_table(trace_run / TRACE_FILE).to_pylist()
    decisions = pq.read_table(next((trace_run / "decisions").glob("*.parquet"))).to_pylist()
    assert len(rows) == len(decisions) == 10
    assert all(r["wall_latency_s"] >= 0.3 and r["ttft_s"] is not None and r["ttft_s"] >= 0.3 for r in rows)
    assert all(r["tokens_in"] > 0 and r["tokens_out"] > 0 and r["spec"].startswith("llm:") for r in rows)


def test_two_replays_are_identical_and_charge_the_traces_latencies(trace_run, tmp_path):
    runs = []
    for name in ("a", "b"):
        done = rtarena_cli("run", ENV, "--agent", "heuristic", "--clock", "replay", "--latency-trace",
                           str(trace_run), "--max-steps", "150", "--out", str(tmp_path / name))
        assert done[0] == 0, done[1]
        runs.append(tmp_path / name)
    digests = [lines(run)[0]["records_sha256"] for run in runs]
    assert digests[0] == digests[1]
    replayed = pq.read_table(next((runs[0] / "decisions").glob("*.parquet"))).to_pylist()
    delays = [d["delay_sim_s"] for d in replayed]
    recorded = statistics.median(pq.read_table(trace_run / TRACE_FILE).column("wall_latency_s").to_pylist())
    assert abs(statistics.median(delays) - recorded) <= 0.1 * recorded
    # the heuristic itself answers in microseconds: the delays are the trace's, not its own
    assert statistics.median(d["wall_latency_s"] for d in replayed) < 0.1 * recorded
    assert lines(runs[0])[0]["clock"]["clock"] == "replay"
    report = build_report([runs[0]], tmp_path / "report").with_suffix(".md").read_text()
    assert "## latency replay: a" in report and "replayed delay (ms)" in report


def test_the_tokens_model_fits_latency_on_tokens(tmp_path):
    # latency = 20 ms + 1 ms per output token, exactly: the fit recovers it for a decision it never saw
    outs = [10, 20, 40, 80, 5, 60]
    table = pa.table({"controller": ["p0"] * len(outs), "wall_latency_s": [0.02 + 0.001 * n for n in outs],
                      "tokens_in": [300 + n % 7 for n in outs], "tokens_out": outs})
    pq.write_table(table, tmp_path / "trace.parquet")
    trace = load_trace(tmp_path / "trace.parquet")
    assert trace.draw(DrawKey(0, "p0", 1), "tokens", tokens_in=303, tokens_out=200) == pytest.approx(0.22, abs=1e-6)
    assert trace.draw(DrawKey(0, "p0", 1), "empirical") in set(table.column("wall_latency_s").to_pylist())
    clock = make_clock("replay", latency_trace=str(tmp_path / "trace.parquet"), latency_model="tokens")
    assert clock.planned_delay_s() == pytest.approx(0.025)  # the least the trace recorded


def test_a_trace_without_latencies_is_one_line_and_exit_2(tmp_path):
    pq.write_table(pa.table({"controller": ["p0"], "tokens_out": [3]}), tmp_path / "bad.parquet")
    done = rtarena_cli("run", ENV, "--agent", "heuristic", "--clock", "replay", "--latency-trace",
                       str(tmp_path / "bad.parquet"), "--max-steps", "5", "--out", str(tmp_path / "out"))
    out = done[1].strip()
    assert done[0] == 2 and "wall_latency_s" in out and len(out.splitlines()) == 1, out
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("columns, settings, missing", [
    ({"wall_latency_s": [0.0, None]}, {}, "no decision latencies"),
    ({"wall_latency_s": [0.1], "tokens_out": [0]}, {"latency_model": "tokens"}, "no token counts"),
    (None, {}, "no such run folder"),
])
def test_what_a_trace_lacks_is_named(tmp_path, columns, settings, missing):
    if columns is not None:
        pq.write_table(pa.table(columns), tmp_path / "t.parquet")
    with pytest.raises(UserError, match=missing):
        make_clock("replay", latency_trace=str(tmp_path / "t.parquet"), **settings)
    with pytest.raises(UserError, match="needs latency_trace"):
        make_clock("replay")
