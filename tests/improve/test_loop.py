"""An offline improvement run end to end: scripted player, reflector and judge behind the real protocol.

The scripted player's play depends only on the skill text in its prompt, so the curve below is measured:
round 0 (no skill) is low, the reflector's first rule lifts it, its harmful rule makes round 2 regress,
the runner rolls back (round 3 plays round 1's skill), and the next rule lifts it again.
"""

from __future__ import annotations

import json
import math
import statistics
from itertools import pairwise
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from tests.improve.helpers import role

from rtarena.improve.loop import ImproveRun, Loop
from rtarena.improve.report import build_improve_report, gain_rows
from rtarena.improve.settings import ImproveSettings
from rtarena.improve.transfer import Variant


@pytest.fixture(scope="module")
def run(server, tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("improve") / "offline"
    settings = ImproveSettings(rounds=5, episodes=2, max_steps=60, transfer_episodes=2, settle_s=None,  # no suite game
                               frames=0)  # no video: the frames have their own tests below
    improve = ImproveRun("classic/cartpole-v0", role(server, "skill", "llm:"), role(server, "reflector"),
                         role(server, "judge"), settings, run_dir, (Variant("heavy", {"masspole": 0.3}),))
    run_dir.mkdir(parents=True)
    (run_dir / "improve.json").write_text(json.dumps(improve.to_dict()))
    metrics = Loop(improve).run_all()
    return run_dir, metrics


def rounds(run_dir: Path) -> list[dict]:
    return [json.loads((run_dir / f"round_{r:02d}" / "round.json").read_text()) for r in range(5)]


def decision_texts(folder: Path) -> list[str]:
    return [t for f in sorted((folder / "decisions").glob("*.parquet")) for t in pq.read_table(f)["text"].to_pylist()]


def test_the_curve_rises_regresses_rolls_back_and_rises_again(run):
    run_dir, metrics = run
    means = [r["interval"]["mean"] for r in rounds(run_dir)]
    assert means[1] > means[0] and means[4] > means[1]
    assert [r["rollback"] for r in rounds(run_dir)] == [False, False, True, False, False]
    assert metrics["rollbacks"] == 1 and metrics["best_round"] == 4
    codes = {s["code"] for s in rounds(run_dir)[2]["signals"]}
    assert {"major_regression", "rollback"} <= codes


def test_rollback_resets_the_players_prompt_to_the_best_skill(run):
    run_dir, _ = run
    skill = {r: (run_dir / f"round_{r:02d}" / "skill_in.md").read_text() for r in range(5)}
    assert "against the swing" in skill[2]  # the harmful rule was played in round 2 ...
    assert skill[3] == skill[1] and "against the swing" not in skill[3]  # ... and round 3 starts from round 1's
    assert rounds(run_dir)[3]["skill_source"] == "rollback to the best skill (round 1)"
    # what the player did says which rules reached its prompt
    assert any("swing" in t for t in decision_texts(run_dir / "round_02"))
    assert all("swing" not in t and "(rules: lean)" in t for t in decision_texts(run_dir / "round_03"))
    # the reflector is told: lints.md of round 3 and the rolled-back skill in get_previous_skill
    assert "rolled_back:" in (run_dir / "round_03" / "lints.md").read_text()
    rows = [json.loads(x) for x in (run_dir / "round_03" / "transcript.jsonl").read_text().splitlines()]
    previous = next(r for r in rows if r.get("tool") == "get_previous_skill")
    assert previous["result"]["rolled_back_skill"] == skill[2]
    assert "harmful: swing" in (run_dir / "round_03" / "notebook.md").read_text()


def test_the_transcript_has_one_row_per_tool_call(run):
    run_dir, _ = run
    for r in (0, 1, 3):
        folder = run_dir / f"round_{r:02d}"
        messages = json.loads((folder / "messages.json").read_text())
        calls = [c for m in messages for c in m.get("tool_calls") or []]
        rows = [json.loads(x) for x in (folder / "transcript.jsonl").read_text().splitlines()]
        assert [row["tool"] for row in rows if row["kind"] == "tool"] == [c["function"]["name"] for c in calls]
        assert [row["tool"] for row in rows][-3:] == ["submit_diagnosis", "validate_skill", "submit_skill"]
        assert (folder / "skill_out.md").read_text().strip()


def test_metrics_match_the_records(run):
    run_dir, metrics = run
    scores = [[float(json.loads(x)["agents"]["agent_0"]["return"])
               for x in (run_dir / f"round_{r:02d}" / "episodes.jsonl").read_text().splitlines()] for r in range(5)]
    means = [statistics.mean(s) for s in scores]
    assert metrics["final_gain"]["mean"] == pytest.approx(means[4] - means[0])
    assert metrics["auc_gain"]["mean"] == pytest.approx(statistics.mean(m - means[0] for m in means[1:]))
    assert metrics["regression_rate"] == pytest.approx(sum(means[r] < means[r - 1] for r in range(1, 5)) / 4)


def test_transfer_matches_an_independent_recomputation_from_the_records(run):
    run_dir, _ = run
    table = json.loads((run_dir / "transfer.json").read_text())
    rows = duckdb.connect().sql(f"""
        SELECT regexp_extract(episode, '__(with|without)$', 1) AS condition, "return" AS score
        FROM read_parquet('{run_dir}/transfer/agents/*.parquet') WHERE episode LIKE '%__heavy__%'""").fetchall()
    by: dict[str, list[float]] = {}
    for condition, score in rows:
        by.setdefault(condition, []).append(score)
    ses = {c: statistics.stdev(v) / math.sqrt(len(v)) for c, v in by.items()}
    (row,) = table["variants"]
    assert row["variant"] == "heavy" and len(by["with"]) == len(by["without"]) == 2
    assert row["transfer"] == pytest.approx(statistics.mean(by["with"]) - statistics.mean(by["without"]))
    assert row["transfer_se"] == pytest.approx(math.sqrt(ses["with"] ** 2 + ses["without"] ** 2))
    assert row["transfer"] > 0  # the best skill helps on the heavier pole too
    seeds = {json.loads(x)["seed"] for x in (run_dir / "transfer" / "episodes.jsonl").read_text().splitlines()}
    assert seeds == {10000, 10001}  # held-out seeds, never the rounds' seeds


def test_report_draws_the_curve_with_rollback_marks_and_links(run, tmp_path):
    run_dir, _ = run
    page = build_improve_report([run_dir], tmp_path / "report")
    svg = (tmp_path / "report" / "curve.svg").read_text()
    assert svg.count("<circle") == 5 and svg.count('class="mark"') == 1 and svg.count('class="interval"') == 5
    text = (tmp_path / "report" / "report.md").read_text()
    assert "| heavy |" in text and "rollback to the best skill (round 1)" in text
    for link in ("round_01/skill_out.md", "round_01/diagnosis.md", "round_01/verdicts.jsonl"):
        assert link in text and (tmp_path / "report" / text.split(link)[0].rsplit("(", 1)[1]).parent.exists()
    assert "curve" in page.read_text()
    (ranked,) = gain_rows([run_dir], "auc_gain")
    assert ranked["rank"] == 1 and ranked["mean"] > 0


def opening_frames(server) -> list[tuple[str, dict]]:
    """The reflector's first request, read at the policy server: its opening message's (label, image) pairs."""
    first = next(b for b in reversed(server.bodies) if len(b["messages"]) == 2
                 and any(t["function"]["name"] == "submit_skill" for t in b.get("tools") or []))
    parts = first["messages"][1]["content"]
    assert isinstance(parts, list), "the opening carries no images"
    return [(parts[i - 1]["text"], part) for i, part in enumerate(parts) if part["type"] == "image_url"]


def shown(round_dir: Path, server) -> list[dict]:
    """The moments of `evidence/frames.jsonl`, each checked against the image the reflector was sent."""
    import base64
    import io

    from PIL import Image, ImageChops

    rows = [json.loads(line) for line in (round_dir / "evidence" / "frames.jsonl").read_text().splitlines()]
    pairs = opening_frames(server)
    assert len(pairs) == len(rows)
    for row, (label, image) in zip(rows, pairs, strict=True):
        assert label.endswith(f"step {row['step']}, sim {row['sim_s']:g} s, {row['kind']} ({row['path']})")
        sent = Image.open(io.BytesIO(base64.b64decode(image["image_url"]["url"].split(",", 1)[1]))).convert("RGB")
        frame = Image.open(round_dir / row["path"]).convert("RGB")
        frame.thumbnail((512, 512))
        assert ImageChops.difference(sent, frame).getbbox() is None  # the very frame of that moment
    return rows


def test_the_reflector_is_sent_the_frames_of_the_moments_that_decided_each_episode(server, tmp_path):
    """By default (4 frames) the reflector's opening request carries the frames of the episode's deciding
    moments, read from its record: each moment is an event (or score change) at the step and sim time the
    episode recorded, the first of its kind, at least a simulated second apart."""
    settings = ImproveSettings(rounds=2, episodes=1, max_steps=40)
    assert settings.frames == 4
    Loop(ImproveRun("games/tilefall-v0", f"llm:scripted-heuristic@{server.base_url}", role(server, "reflector"),
                    role(server, "judge"), settings, tmp_path / "seen")).play_round(0)
    round_dir = tmp_path / "seen" / "round_00"
    rows = shown(round_dir, server)
    assert len(rows) == 4
    events = duckdb.connect().execute(f"select step, sim_s, type from '{round_dir}/events/*.parquet'").fetchall()
    happened = [r for r in rows if r["kind"] not in ("spread", "score")]
    assert {r["kind"] for r in happened} >= {"warn", "drop"}  # tilefall's mechanics at work, not spread moments
    for row in happened:
        assert (row["step"], row["sim_s"], row["kind"]) in events  # the recorded event's own step and time
        for step, _, kind in events:  # an earlier time of its kind was too near a moment already chosen
            if kind == row["kind"] and 10 <= step < row["step"]:
                assert any(abs(step - other["step"]) < 10 for other in rows if other["step"] < row["step"])
        assert row["frame"] == row["step"] + 1  # the frame after the event's step
    steps = sorted(r["step"] for r in rows if r["kind"] != "spread")
    assert all(b - a >= 10 for a, b in pairwise(steps)) and steps[0] >= 10  # 1 s at dt 0.1


def test_an_episode_without_deciding_moments_is_shown_at_evenly_spread_moments(server, tmp_path):
    """Negative control: cartpole records no event and its reward never changes, so its frames are the fallback:
    moments spread evenly over the steps, the last at the episode's end."""
    settings = ImproveSettings(rounds=2, episodes=1, max_steps=15, frames=3, settle_s=None)
    Loop(ImproveRun("classic/cartpole-v0", role(server, "skill", "llm:"), role(server, "reflector"),
                    role(server, "judge"), settings, tmp_path / "framed")).play_round(0)
    round_dir = tmp_path / "framed" / "round_00"
    rows = shown(round_dir, server)
    n = json.loads((round_dir / "episodes.jsonl").read_text().splitlines()[0])["steps"]  # the pole may fall early
    expected = [("spread", round(n * i / 3), min(round(n * i / 3) + 1, n)) for i in (1, 2, 3)]  # frame n: the end
    assert [(r["kind"], r["step"], r["frame"]) for r in rows] == expected
    assert "## Frames of the moments that decided each episode" in (round_dir / "evidence" / "summary.md").read_text()


def test_held_out_episodes_are_played_outside_the_round_folder(server, tmp_path):
    settings = ImproveSettings(rounds=2, episodes=1, max_steps=30, holdout_episodes=2, settle_s=None, frames=0)
    improve = ImproveRun("classic/cartpole-v0", role(server, "skill", "llm:"), role(server, "reflector"),
                         role(server, "judge"), settings, tmp_path / "held")
    Loop(improve).run_all()
    for r in range(2):
        held = [json.loads(x) for x in (tmp_path / "held" / "holdout" / f"round_{r:02d}" / "episodes.jsonl")
                .read_text().splitlines()]
        assert sorted(h["seed"] for h in held) == [20000, 20001]
        state = json.loads((tmp_path / "held" / f"round_{r:02d}" / "round.json").read_text())
        ordered = sorted(held, key=lambda h: h["episode"])
        assert state["holdout_scores"] == [h["agents"]["agent_0"]["return"] for h in ordered]
        assert not (tmp_path / "held" / f"round_{r:02d}" / "holdout").exists()


def test_coop_evidence_tables_label_each_rows_controller(server, tmp_path):
    """Both cooks of a co-op game are the player: the step table tells their decisions apart."""
    settings = ImproveSettings(rounds=1, episodes=1, max_steps=12, frames=0)
    improve = ImproveRun("games/kitchen-v0", f"llm:scripted-heuristic@{server.base_url}",
                         role(server, "reflector"), role(server, "judge"), settings, tmp_path / "coop")
    Loop(improve).run_all()
    table = next((tmp_path / "coop" / "round_00" / "evidence").glob("*.steps.md")).read_text()
    head = table.splitlines()[2]
    assert head.startswith("| decision | controller |")
    seats = {line.split("|")[2].strip() for line in table.splitlines()[4:]}
    assert seats == {"p0", "p1"}
