"""The per-episode evidence a reflector reads: step tables and a round summary, from the round's records.

For each episode of a round folder (`decisions/` and `steps/` Parquet, `episodes.jsonl`) this writes
`evidence/<episode>.steps.jsonl` (one row per decision: its controller -- a co-op game's seats told apart
--, the step it applied at, simulated time, the
action, the model's reasoning text, score so far and score change, wall latency, tokens) and the same as
a Markdown table (`.steps.md`, reasoning cut to `REASON_CHARS`), plus `evidence/summary.md`: one row per
episode with its score, length, whether it ended before the step limit, and the last decision's reasoning.
"Score" in the step table is the player's return so far (summed rewards of the controller's agents).

With `frames` > 0 (`ImproveSettings.frames`, 4 by default) the episodes are recorded as MP4 and each gets the
frames of the moments that decided it (`deciding_moments`), read from its record: a score change (an agent's
reward becomes nonzero or changes value: `score`) and each kind of event the env recorded (a death, a fall, a
failed interaction such as `refused` or `hands_full`, an expired order, a hit...), the first time each kind
happens, at least one simulated second apart and never in the opening second -- the rule the identification
probe uses (`rtarena.envs.games.identify.informative_moments`). An episode with fewer such kinds fills in with
moments spread evenly over its steps, the last at its end (kind `spread`). A moment at step k is shown by the
frame after that step (video frame k + 1). The frames go to `evidence/frames/KEY/NNNNN.png`, their moments to
`evidence/frames.jsonl`, and the reflector's opening message carries them (`reflector.py`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from rtarena.eval.store import read_episodes, write_bytes

REASON_CHARS = 160
FRAMES_FILE = "frames.jsonl"  # under evidence/: one row per frame shown, with its moment


def _json(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def step_table(round_dir: Path, key: str) -> list[dict[str, Any]]:
    decisions_path, steps_path = round_dir / "decisions" / f"{key}.parquet", round_dir / "steps" / f"{key}.parquet"
    if not decisions_path.exists() or not steps_path.exists():
        return []
    decisions = pq.read_table(decisions_path).to_pylist()
    steps = pq.read_table(steps_path).to_pylist()
    rewards = [_json(s.get("rewards")) or {} for s in steps]
    rows, previous = [], {}
    for d in decisions:
        agents = _json(d.get("agents")) or []
        upto = d.get("applied_step")
        upto = len(steps) - 1 if upto is None else int(upto)
        score = sum(float(r.get(a, 0.0)) for r in rewards[: upto + 1] for a in agents)
        controller = d.get("controller")
        label = f"{controller} ({'+'.join(agents)})" if agents and list(agents) != [controller] else controller
        rows.append({"decision": d.get("index"), "controller": label, "step": d.get("applied_step"),
                     "sim_s": d.get("start_sim_s"), "action": _json(d.get("action")), "valid": d.get("valid"),
                     "reasoning": d.get("text") or "", "score": round(score, 6),
                     "score_change": round(score - previous.get(controller, 0.0), 6),
                     "wall_latency_s": d.get("wall_latency_s"), "tokens_out": d.get("tokens_out")})
        previous[controller] = score
    return rows


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def table_markdown(key: str, rows: list[dict[str, Any]]) -> str:
    # every row names its controller: in a co-op game each seat's decisions are told apart
    head = ["decision", "controller", "step", "sim s", "action", "score", "change", "latency s", "reasoning"]
    lines = [f"# Step table: {key}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        latency = "" if r["wall_latency_s"] is None else f"{r['wall_latency_s']:.3f}"
        lines.append("| " + " | ".join(_cell(v) for v in (
            r["decision"], r["controller"], r["step"], r["sim_s"], json.dumps(r["action"]), r["score"],
            r["score_change"], latency, str(r["reasoning"])[:REASON_CHARS])) + " |")
    return "\n".join(lines) + "\n"


def deciding_moments(round_dir: Path, key: str, count: int) -> list[dict[str, Any]]:
    """The `count` moments that decided episode `key`, read from its `steps/` and `events/` records (see the
    module's docstring): `{"step", "sim_s", "kind"}` each, in order of time."""
    from rtarena.envs.games.identify import informative_moments

    steps_path, events_path = round_dir / "steps" / f"{key}.parquet", round_dir / "events" / f"{key}.parquet"
    steps = pq.read_table(steps_path, columns=["step", "sim_s", "rewards"]).to_pylist() if steps_path.exists() else []
    events = []
    if events_path.exists():
        events = [(int(e["step"]), str(e["type"]), float(e["sim_s"]))
                  for e in pq.read_table(events_path, columns=["step", "sim_s", "type"]).to_pylist()]
    before: dict[str, float] = {}
    for row in steps:  # a score change: an agent's reward becomes nonzero or changes value
        rewards = {a: float(r) for a, r in (_json(row.get("rewards")) or {}).items()}
        if any(r and r != before.get(a, 0.0) for a, r in rewards.items()):
            events.append((int(row["step"]), "score", float(row["sim_s"])))
        before = rewards
    events.sort()
    dt = steps[1]["sim_s"] - steps[0]["sim_s"] if len(steps) > 1 else 0.0
    min_gap = max(1, round(1.0 / dt)) if dt > 0 else 1
    spread = tuple((i + 1) / count for i in range(count))
    times = {(step, kind): sim_s for step, kind, sim_s in events}
    return [{"step": step, "sim_s": times.get((step, kind), round(step * dt, 9)), "kind": kind}
            for step, kind in informative_moments([(s, k) for s, k, _ in events], len(steps), min_gap, count,
                                                  spread)]


def write_frames(round_dir: Path, key: str, count: int) -> list[dict[str, Any]]:
    """The frames of the episode's deciding moments (`deciding_moments`), from its MP4, as
    `evidence/frames/KEY/NNNNN.png` (NNNNN: the video frame): one row per frame with its moment."""
    video = round_dir / "videos" / f"{key}.mp4"
    if count <= 0 or not video.exists():
        return []
    import imageio_ffmpeg
    import numpy as np
    from PIL import Image

    total, _ = imageio_ffmpeg.count_frames_and_secs(str(video))
    if not total:
        return []
    moments = deciding_moments(round_dir, key, count)
    picks: dict[int, list[dict[str, Any]]] = {}
    for moment in moments:  # the frame after the moment's step (frame 0 is the reset's)
        picks.setdefault(min(moment["step"] + 1, total - 1), []).append(moment)
    reader = imageio_ffmpeg.read_frames(str(video))
    width, height = next(reader)["size"]
    rows = []
    for index, data in enumerate(reader):  # streamed: only the picked frames are kept
        if index in picks:
            path = round_dir / "evidence" / "frames" / key / f"{index:05d}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            Image.fromarray(np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3)).save(path)
            rows += [{"episode": key, "path": path.relative_to(round_dir).as_posix(), "frame": index, **m}
                     for m in picks[index]]
    return rows


def write_evidence(round_dir: Path, scores: dict[str, float], max_steps: int | None, frames: int) -> None:
    """Write the step tables, frames (when videos were recorded) and the summary of the round's episodes."""
    out = round_dir / "evidence"
    summary = ["# Episodes of this round", "",
               "| episode | seed | score | steps | decisions | ended | last reasoning |",
               "|---|---|---|---|---|---|---|"]
    pictures: list[str] = []
    shown_rows: list[dict[str, Any]] = []
    for line in sorted(read_episodes(round_dir), key=lambda ln: ln.get("episode", "")):
        key = line.get("episode", "")
        if line.get("status") != "ok":
            error = _cell(line.get("error", ""))[:REASON_CHARS]
            summary.append(f"| {key} | {line.get('seed')} | failed | | | | {error} |")
            continue
        rows = step_table(round_dir, key)
        write_bytes(out / f"{key}.steps.jsonl", "".join(json.dumps(r) + "\n" for r in rows).encode())
        write_bytes(out / f"{key}.steps.md", table_markdown(key, rows).encode())
        shown = write_frames(round_dir, key, frames)
        shown_rows += shown
        if shown:
            pictures.append(f"- {key}: " + ", ".join(f"{r['path']} (step {r['step']}, sim {r['sim_s']:g} s: "
                                                      f"{r['kind']})" for r in shown))
        ended = "at the step limit" if max_steps is not None and line.get("steps", 0) >= max_steps else "by the env"
        last = _cell(rows[-1]["reasoning"])[:REASON_CHARS] if rows else ""
        summary.append(f"| {key} | {line.get('seed')} | {scores.get(key, float('nan')):.4g} | {line.get('steps')} | "
                       f"{line.get('decisions')} | "
                       f"{ended} | {last} |")
    write_bytes(out / FRAMES_FILE, "".join(json.dumps(r) + "\n" for r in shown_rows).encode())
    if pictures:
        summary += ["", "## Frames of the moments that decided each episode (read_image)", *pictures]
    write_bytes(out / "summary.md", ("\n".join(summary) + "\n").encode())
