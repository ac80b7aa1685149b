"""A model agent plays a suite game through the real protocol: `rtarena run --agent llm:...` against the
scripted policy server, which answers in the chunked key form."""

from __future__ import annotations

import json
import subprocess
import sys

import duckdb


def test_llm_agent_plays_tilefall_to_its_end_in_the_chunked_key_form(server, tmp_path):
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "rtarena.cli", "run", "games/tilefall-v0", "--agent",
                           f"llm:scripted-heuristic@{server.base_url}", "--clock", "paused", "--max-steps", "5000",
                           "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    episode = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    p0 = episode["agents"]["p0"]
    # the game's own end (a fall or its 40 s limit), not the step limit
    assert episode["steps"] <= 400 and (episode["steps"] == 400 or p0["score"] < 1)
    assert p0["invalid_decisions"] == 0 and p0["score"] > 0.25
    rows = duckdb.connect().execute(f"select text, action from '{out}/decisions/*.parquet'").fetchall()
    assert len(rows) == episode["decisions"] and all("ACTION: 0 0 ; " in text for text, _ in rows)
    moved = [a for _, a in rows if any(json.loads(a)["keys"])]
    assert len(moved) > 5
