"""`rtarena run` on a browser task writes episodes, decision records and a few screenshots."""

from __future__ import annotations

import json

from tests.helpers import rtarena_cli


def test_run_auction_with_the_oracle_under_token_writes_screenshots(tmp_path):
    out = tmp_path / "run"
    done = rtarena_cli("run", "web/auction-v0", "--agent", "oracle", "--clock", "token", "--seeds", "2",
                       "--out", str(out))
    assert done.returncode == 0, done.stderr
    episodes = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert [e["seed"] for e in episodes] == [0, 1]
    for episode in episodes:
        (metrics,) = episode["agents"].values()
        assert metrics["success"] == 1.0 and metrics["progress"] == 1.0
        shots = list((out / "screenshots" / episode["episode"]).rglob("*.jpg"))
        assert len(shots) >= 3 and all(p.stat().st_size > 1000 for p in shots)
        assert sorted(episode["files"]) == sorted(p.relative_to(out).as_posix() for p in shots)
        assert (out / "decisions" / f"{episode['episode']}.parquet").exists()
