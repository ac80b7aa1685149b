"""Under `wall` a slow model's reply still acts when it arrives (Realtime-Bench's WH examples: replies of
16.6 to 42.3 s), and a call still running when the episode ends is recorded as abandoned (issue 24)."""

from __future__ import annotations

import subprocess
import sys

import pyarrow.parquet as pq

from rtarena.policy_server import PolicyServer


def test_a_6_s_reply_under_wall_is_applied_late_and_the_next_call_is_abandoned_at_the_end(tmp_path):
    out = tmp_path / "run"
    with PolicyServer() as server:  # every reply's first token comes 6 s after the request
        done = subprocess.run([sys.executable, "-m", "rtarena.cli", "run", "gui-games/g2048-v0",
                               "--agent", f"llm:scripted-heuristic@{server.url(ttft_s=6)}", "--clock", "wall",
                               "--max-steps", "9", "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (table,) = [pq.read_table(path).to_pylist() for path in (out / "decisions").glob("*.parquet")]
    first, *rest = table
    assert first["valid"] and first["error"] is None and first["wall_latency_s"] > 5.0
    assert first["applied_sim_s"] is not None and first["applied_sim_s"] >= first["committed_sim_s"] > 5.0
    assert first["late"] is True  # 5 frames were published while it was thinking
    # the second call (asked at about 6 s) cannot be answered before the episode's 9 s: abandoned, recorded
    assert rest and rest[-1]["error"].startswith("abandoned") and rest[-1]["committed_sim_s"] is None
    assert "abandoned" in done.stdout + done.stderr
