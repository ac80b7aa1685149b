"""Bullet attribution: what each bullet of a skill is worth (`rtarena improve-analyse RUN --attribution`).

For the best skill (or round `--round N`'s), the player plays the full skill and, for every bullet, the
skill without that bullet, all on the same seeds (the run's own round seeds, `seed_start ..`), into
`RUN/analysis/attribution/`. A bullet's effect is mean over seeds of (score with the full skill - score
without the bullet): positive when the bullet helps, negative when it hurts. Its interval is a paired
percentile bootstrap over seeds (`metrics.gain_interval`: one resample of seed indices for both
conditions), so seed difficulty cancels. A skill needs two or more bullets to leave one out of.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from rtarena.errors import UserError
from rtarena.eval.store import read_episodes
from rtarena.improve.lints import BULLET, bullets


@dataclass(frozen=True)
class BulletEffect:
    """One bullet: its text, the mean scores with and without it, and the paired effect with its interval."""

    bullet: str
    with_mean: float
    without_mean: float
    effect: float
    lo: float
    hi: float
    n: int


def without(skill: str, bullet_index: int) -> str:
    """The skill text with its `bullet_index`-th bullet line removed (every other line kept)."""
    out, seen = [], -1
    for line in skill.splitlines():
        if BULLET.match(line):
            seen += 1
            if seen == bullet_index:
                continue
        out.append(line)
    return "\n".join(out) + "\n"


def attribution(run_dir: str | Path, round_index: int | None = None, episodes: int | None = None,
                console: Console | None = None) -> tuple[int, list[BulletEffect]]:
    """(the round whose skill was attributed, one `BulletEffect` per bullet); plays the episodes it needs
    into `RUN/analysis/attribution` (afresh each time), on the run's own player endpoint."""
    from rtarena.eval.runner import run_jobs
    from rtarena.improve.adherence import improve_run
    from rtarena.improve.loop import ImproveRun, episode_score, jobs_for
    from rtarena.improve.metrics import gain_interval

    run_dir = Path(run_dir)
    run = ImproveRun.from_dict(improve_run(run_dir), run_dir)
    if round_index is None:
        metrics = run_dir / "metrics.json"
        if not metrics.is_file():
            raise UserError(f"{run_dir}: no metrics.json (the run is unfinished); give --round N", field="RUN")
        import json

        round_index = int(json.loads(metrics.read_text())["best_round"])
    skill_path = run.round_dir(round_index) / "skill_in.md"
    if not skill_path.is_file():
        raise UserError(f"{run_dir}: round {round_index} has no skill_in.md", field="--round")
    skill = skill_path.read_text(encoding="utf-8")
    items = bullets(skill)
    if len(items) < 2:
        raise UserError(f"the skill of round {round_index} has {len(items)} bullet(s): leaving one out needs two or "
                        "more", field="--attribution")
    folder = run_dir / "analysis" / "attribution"
    if folder.exists():  # a fresh play each time: a failed episode's line would otherwise stay for good
        import shutil

        shutil.rmtree(folder)
    skills = folder / "skills"
    skills.mkdir(parents=True, exist_ok=True)
    (skills / "full.md").write_text(skill, encoding="utf-8")
    s = run.settings
    seeds = list(range(s.seed_start, s.seed_start + (episodes or s.episodes)))
    jobs = jobs_for(run, skills / "full.md", seeds, "full", "full")
    for k in range(len(items)):
        (skills / f"without_{k + 1:02d}.md").write_text(without(skill, k), encoding="utf-8")
        jobs += jobs_for(run, skills / f"without_{k + 1:02d}.md", seeds, f"without_{k + 1:02d}",
                         f"without_{k + 1:02d}")
    run_jobs(jobs, folder, f"{run_dir.name}-attribution", {"name": "improve-attribution", "round": round_index},
             workers=s.workers, console=console or Console(stderr=True))
    metric = s.metric or _metric(run_dir, round_index)
    lines = [ln for ln in read_episodes(folder) if ln.get("status") == "ok"]
    score = {(ln["label"], ln["seed"]): episode_score(ln, metric) for ln in lines}
    failed = sorted({ln["label"] for ln in read_episodes(folder) if ln.get("status") != "ok"})
    if failed:
        raise UserError(f"{folder}: episodes of {', '.join(failed)} failed (is the player's endpoint up?); see "
                        "episodes.jsonl there", field="--attribution")
    full = [score.get(("full", seed), float("nan")) for seed in seeds]
    out = []
    for k, item in enumerate(items):
        left = [score.get((f"without_{k + 1:02d}", seed), float("nan")) for seed in seeds]
        stat = gain_interval([full, left], lambda m: m[0] - m[1], s.bootstrap, s.confidence)
        out.append(BulletEffect(item, _mean(full), _mean(left), stat.mean, stat.lo, stat.hi, stat.n))
    return round_index, out


def _mean(values: list[float]) -> float:
    import numpy as np

    return float(np.nanmean(values))


def _metric(run_dir: Path, round_index: int) -> str:
    """The metric the run scored its rounds by (`round.json`), else `score`/`return`."""
    from rtarena.eval.manifest import read_json

    return str(read_json(run_dir / f"round_{round_index:02d}" / "round.json").get("metric") or "return")


def attribution_markdown(round_index: int, rows: list[BulletEffect]) -> list[str]:
    lines = [f"Skill of round {round_index}: effect = score with the full skill - score without the bullet (paired "
             "over seeds, bootstrap interval).", "",
             "| # | bullet | with | without | effect | interval | n |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {i + 1} | {r.bullet.replace('|', '/')} | {r.with_mean:.4g} | {r.without_mean:.4g} | "
              f"{r.effect:+.4g} | [{r.lo:+.4g}, {r.hi:+.4g}] | {r.n} |" for i, r in enumerate(rows)]
    return lines


def attribution_chart(rows: list[BulletEffect], title: str) -> str:
    from rtarena.eval import svg

    return svg.dot_interval_chart(title, "effect on the score",
                                  {f"{i + 1}. {r.bullet[:20]}": (r.effect, r.lo, r.hi) for i, r in enumerate(rows)})


def rows_json(rows: list[BulletEffect]) -> list[dict[str, Any]]:
    from dataclasses import asdict

    return [asdict(r) for r in rows]
