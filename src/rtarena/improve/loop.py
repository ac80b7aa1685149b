"""The improvement loop: rounds of K episodes, a reflection after each, rollback, metrics, transfer.

    runs/<run_id>/
      improve.json          the run: env, player, reflector and judge specs, settings, variants
      metrics.json          the curve's numbers (metrics.py); transfer.json and transfer/ (transfer.py)
      round_NN/             one round: a run folder of `rtarena run` (episodes.jsonl, agents/, decisions/,
                            steps/, events/, config.json, run.json) plus
        skill_in.md         the skill the player played this round with (empty in round 0)
        round.json          how skill_in was chosen, scores, interval, signals, rollback, reflection outcome
        evidence/           step tables and summary.md (evidence.py)
        lints.md            the signals before reflection (signals.py)
        transcript.jsonl    the reflector's conversation, one row per tool call; messages.json in full
        diagnosis.json/.md, verdicts.jsonl, submissions.jsonl, skill_out.md, notebook.md

Round 0 plays with an empty skill; round r+1 plays `round_r/skill_out.md` -- or, when round r scored below
`alpha` x the best round (`signals.threshold`), the best round's `skill_in.md` verbatim (a rollback: the
reflection after round r is skipped and the next reflection is told, with the rolled-back skill in
`get_previous_skill`). Resume: a round whose `round.json` says `done` is skipped; an unfinished round
finishes its missing episodes (`eval.runner.run_jobs` with resume) and redoes its reflection.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from rich.console import Console

from rtarena.eval.episodes import EpisodeJob
from rtarena.eval.manifest import read_json
from rtarena.eval.runner import run_jobs
from rtarena.eval.store import read_episodes, write_bytes
from rtarena.improve.evidence import write_evidence
from rtarena.improve.metrics import best_round as choose_best
from rtarena.improve.metrics import curve_metrics, interval, peak_passed, stop_summary, variant_curve
from rtarena.improve.player import with_skill
from rtarena.improve.settings import ImproveSettings
from rtarena.improve.signals import Signal, lints_markdown, round_signals
from rtarena.improve.submit import RoundState
from rtarena.improve.transfer import CONDITIONS, HOLDOUT_OFFSET, Variant, label, transfer_table

RUN_FILE, METRICS, TRANSFER = "improve.json", "metrics.json", "transfer.json"


@dataclass(frozen=True)
class ImproveRun:
    env_id: str
    player: str
    reflector: str
    judge: str
    settings: ImproveSettings
    run_dir: Path
    variants: tuple[Variant, ...] = ()
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    ray: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "improve", "run_id": self.run_dir.name, "env_id": self.env_id, "player": self.player,
                "reflector": self.reflector, "judge": self.judge, "settings": self.settings.model_dump(),
                "variants": [asdict(v) for v in self.variants], "env_kwargs": self.env_kwargs}

    @classmethod
    def from_dict(cls, data: dict[str, Any], run_dir: Path, ray: str | None = None) -> ImproveRun:
        return cls(data["env_id"], data["player"], data["reflector"], data["judge"],
                   ImproveSettings(**data["settings"]), run_dir, tuple(Variant(**v) for v in data["variants"]),
                   data.get("env_kwargs") or {}, ray)

    def round_dir(self, index: int) -> Path:
        return self.run_dir / f"round_{index:02d}"


def write_json(path: Path, data: Any) -> None:
    write_bytes(path, (json.dumps(data, indent=1, sort_keys=True, default=str) + "\n").encode())


def episode_score(line: dict[str, Any], metric: str) -> float:
    """An episode's score: the mean of `metric` over its agents (every slot is the player)."""
    values = [float(m[metric]) for m in (line.get("agents") or {}).values() if m.get(metric) is not None]
    return sum(values) / len(values) if values else math.nan


def resolve_metric(lines: list[dict[str, Any]], wanted: str | None) -> str:
    names = {k for ln in lines if ln.get("status") == "ok" for m in ln["agents"].values() for k in m}
    if wanted:
        if names and wanted not in names:
            from rtarena.errors import UserError

            raise UserError(f"no metric {wanted!r}; episodes have {', '.join(sorted(names))}", field="--metric")
        return wanted
    return "score" if "score" in names else "return"


def jobs_for(run: ImproveRun, skill_file: Path | None, seeds: list[int], tag: str, labels: str = "",
             env_kwargs: dict[str, Any] | None = None) -> list[EpisodeJob]:
    s = run.settings
    spec = with_skill(run.player, skill_file)
    kwargs = {**run.env_kwargs, **(env_kwargs or {})}
    return [EpisodeJob(run.env_id, (spec,), s.run_clock, seed, s.max_steps, kwargs, labels,
                       {"level": run.env_id.split("/")[-1], "lineup": tag, "clock_name": s.clock, "obs": ""})
            for seed in seeds]


class Loop:
    """Plays and reflects round after round; every decision lands in the run folder first."""

    def __init__(self, run: ImproveRun, console: Console | None = None) -> None:
        self.run = run
        self.s = run.settings
        self.console = console or Console(stderr=True)
        self.rounds: list[dict[str, Any]] = []
        self.metric: str | None = self.s.metric
        self._chat: Any = None
        self._judge: Any = None

    # -- one round -------------------------------------------------------------------------------------
    def skill_for(self, index: int) -> tuple[str, str]:
        """(skill text, where it came from) for round `index`, from the finished rounds before it."""
        if index == 0:
            return "", "empty (round 0)"
        before = self.rounds[index - 1]
        if before["rollback"]:
            best = before["best_round"]
            return self._text(self.run.round_dir(best) / "skill_in.md"), f"rollback to the best skill (round {best})"
        source = f"reflection after round {index - 1}"
        if not before.get("reflection", {}).get("accepted"):
            source += f" (no skill accepted: {before.get('reflection', {}).get('reason')}; skill kept)"
        return self._text(self.run.round_dir(index - 1) / "skill_out.md"), source

    @staticmethod
    def _text(path: Path) -> str:
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def play_round(self, index: int) -> dict[str, Any]:
        rd = self.run.round_dir(index)
        state = read_json(rd / "round.json")
        if state.get("done"):
            return state
        if not (rd / "skill_in.md").exists() or "skill_source" not in state:
            skill, source = self.skill_for(index)
            write_bytes(rd / "skill_in.md", skill.encode())
            state = {"round": index, "skill_source": source, "done": False}
            write_json(rd / "round.json", state)
        skill = self._text(rd / "skill_in.md")
        seeds = list(range(self.s.seed_start, self.s.seed_start + self.s.episodes))
        jobs = jobs_for(self.run, rd / "skill_in.md" if skill.strip() else None, seeds, f"round_{index:02d}")
        if self.s.frames:
            jobs = [replace(job, video=True) for job in jobs]
        config = {"name": f"improve-round-{index:02d}", "improve_run": self.run.run_dir.name, "round": index}
        run_jobs(jobs, rd, f"{self.run.run_dir.name}-round{index:02d}", config, workers=self.s.workers,
                 ray=self.run.ray, resume=True, console=self.console)
        lines = read_episodes(rd)
        self.metric = resolve_metric(lines, self.metric)
        scores = {ln["episode"]: episode_score(ln, self.metric) for ln in lines if ln.get("status") == "ok"}
        write_evidence(rd, scores, self.s.max_steps, self.s.frames)
        if self.s.holdout_episodes:
            state["holdout_scores"] = self.holdout(index, rd / "skill_in.md" if skill.strip() else None)
        if self.s.transfer_every_round and "variant_scores" not in state:
            state["variant_scores"] = self.round_transfer(index, rd / "skill_in.md" if skill.strip() else None)
        return self.judge_round(index, rd, state, skill, [scores[k] for k in sorted(scores)])

    def holdout(self, index: int, skill_file: Path | None) -> list[float]:
        """Held-out episodes of this round's skill, outside the round folder (the reflector never sees them)."""
        folder = self.run.run_dir / "holdout" / f"round_{index:02d}"
        start = self.s.seed_start + HOLDOUT_OFFSET * 2
        jobs = jobs_for(self.run, skill_file, list(range(start, start + self.s.holdout_episodes)),
                        f"holdout_{index:02d}")
        run_jobs(jobs, folder, f"{self.run.run_dir.name}-holdout{index:02d}", {"name": "improve-holdout"},
                 workers=self.s.workers, ray=self.run.ray, resume=True, console=self.console)
        lines = sorted(read_episodes(folder), key=lambda ln: ln["episode"])
        return [episode_score(ln, str(self.metric)) for ln in lines if ln.get("status") == "ok"]

    def round_transfer(self, index: int, skill_file: Path | None) -> dict[str, list[float]]:
        """This round's skill on every variant (`--transfer-every-round`): held-out seeds, outside the round
        folder; per variant its episode scores."""
        folder = self.run.run_dir / "transfer_rounds" / f"round_{index:02d}"
        start = self.s.seed_start + HOLDOUT_OFFSET
        jobs = []
        for variant in self.run.variants or (Variant("base"),):
            jobs += jobs_for(self.run, skill_file, list(range(start, start + self.s.transfer_episodes)),
                             f"variants_{index:02d}", variant.name, variant.kwargs)
        run_jobs(jobs, folder, f"{self.run.run_dir.name}-variants{index:02d}", {"name": "improve-variants"},
                 workers=self.s.workers, ray=self.run.ray, resume=True, console=self.console)
        out: dict[str, list[float]] = {}
        for line in sorted(read_episodes(folder), key=lambda ln: ln["episode"]):
            if line.get("status") == "ok":
                out.setdefault(line["label"], []).append(episode_score(line, str(self.metric)))
        return out

    def judge_round(self, index: int, rd: Path, state: dict[str, Any], skill: str, scores: list[float]) -> dict:
        """Signals, rollback and reflection of a round whose episodes are all recorded."""
        previous = [r["scores"] for r in self.rounds] + [scores]
        intervals = [interval(s, self.s.bootstrap, self.s.confidence) for s in previous]
        means = [i.mean for i in intervals]
        # the best skill is chosen on held-out episodes when there are any, else on the rounds' own
        chosen = [r.get("holdout_scores") for r in self.rounds] + [state.get("holdout_scores")]
        best = choose_best([interval(s, self.s.bootstrap, self.s.confidence) for s in chosen]
                           if self.s.holdout_episodes else intervals)
        found = round_signals(index, scores, means, means[best], best, self.s.alpha, skill)
        replay = state["skill_source"].startswith("rollback")
        if replay:
            found.append(Signal("rolled_back", f"round {index - 1} scored {means[index - 1]:.4g}, below the rollback "
                                f"threshold; this round replayed the best skill ({state['skill_source']}); the "
                                "rolled-back skill is in get_previous_skill"))
        write_bytes(rd / "lints.md", lints_markdown(index, found).encode())
        rollback = any(sig.code == "rollback" for sig in found)
        state.update({"scores": scores, "metric": self.metric, "interval": asdict(intervals[-1]), "best_round": best,
                      "signals": [asdict(sig) for sig in found], "rollback": rollback})
        if index < self.s.rounds - 1 and not rollback:
            round_state = RoundState(index, skill, self.notebook(index), index > 0 and means[-1] < means[-2],
                                     [sig.code for sig in found],
                                     self._text(self.run.round_dir(index - 1) / "skill_in.md") if replay else None,
                                     best)
            state["reflection"] = self.reflect(rd, round_state, intervals[-1])
        elif rollback:
            state["reflection"] = {"accepted": False, "reason": "skipped: rollback to the best skill"}
        state["done"] = True
        write_json(rd / "round.json", state)
        return state

    def notebook(self, index: int) -> str:
        for r in range(index - 1, -1, -1):
            path = self.run.round_dir(r) / "notebook.md"
            if path.exists():
                return path.read_text(encoding="utf-8")
        return ""

    def reflect(self, rd: Path, state: RoundState, stat: Any) -> dict[str, Any]:
        from rtarena.improve.chat import role_client
        from rtarena.improve.judge import Judge
        from rtarena.improve.reflector import reflect

        self._chat = self._chat or role_client(self.run.reflector, role="reflector")
        self._judge = self._judge or Judge(self.run.judge)
        opening = (f"Round {state.index} is over: mean {self.metric} {stat.mean:.4g} (95% CI {stat.lo:.4g} to "
                   f"{stat.hi:.4g}) over {stat.n} episodes. Round means so far: "
                   + ", ".join(f"{r['interval']['mean']:.4g}" for r in self.rounds) + (", " if self.rounds else "")
                   + f"{stat.mean:.4g}. Signals (lints.md):\n" + (rd / "lints.md").read_text(encoding="utf-8")
                   + "\nRead the evidence, diagnose, then submit the skill for the next round.")
        outcome = reflect(self._chat, self._judge, rd, state, self.s, self.run.env_id, str(self.metric), opening)
        write_bytes(rd / "skill_out.md", outcome.skill.encode())
        write_bytes(rd / "notebook.md", outcome.notebook.encode())
        self.console.print(f"round {state.index}: reflection {outcome.reason} after {outcome.turns} turns",
                           highlight=False)
        return {"accepted": outcome.accepted, "reason": outcome.reason, "turns": outcome.turns}

    # -- the whole run ---------------------------------------------------------------------------------
    def run_all(self) -> dict[str, Any]:
        try:
            stopped_after = None
            for index in range(self.s.rounds):
                state = self.play_round(index)
                self.rounds.append(state)
                i = state["interval"]
                self.console.print(f"round {index}: {state['metric']} {i['mean']:.4g} [{i['lo']:.4g}, {i['hi']:.4g}]"
                                   + ("  rollback" if state["rollback"] else ""), highlight=False)
                if self.s.stop_rule == "peak" and self.peak_passed():
                    stopped_after = index
                    break
            metrics = curve_metrics([r["scores"] for r in self.rounds],
                                    [r["round"] for r in self.rounds if r["rollback"]], self.s.bootstrap,
                                    self.s.confidence,
                                    [r["holdout_scores"] for r in self.rounds] if self.s.holdout_episodes else None)
            if self.s.transfer_every_round:
                metrics.update(variant_curve([r.get("variant_scores") or {} for r in self.rounds], self.s.bootstrap,
                                             self.s.confidence))
            if self.s.stop_rule == "peak":
                metrics["stop"] = stop_summary([r["holdout_scores"] for r in self.rounds], stopped_after,
                                               self.s.bootstrap, self.s.confidence)
            metrics.update({"metric": self.metric, "player": self.run.player.split("@", 1)[0],
                            "best_skill": self._text(self.run.round_dir(metrics["best_round"]) / "skill_in.md")})
            write_json(self.run.run_dir / METRICS, metrics)
            if self.s.transfer_episodes:
                self.transfer(metrics["best_round"])
            return metrics
        finally:
            for client in (self._chat, self._judge):
                if client is not None:
                    client.close()

    def peak_passed(self) -> bool:
        """The stop rule `peak` after the latest round (metrics.peak_passed), with a line when it fires."""
        passed, peak, diff = peak_passed([r["holdout_scores"] for r in self.rounds], self.s.bootstrap,
                                         self.s.confidence)
        if passed:
            self.console.print(f"stop rule peak: round {len(self.rounds) - 1} is below round {peak} on held-out "
                               f"episodes by {-diff.mean:.4g} [{-diff.hi:.4g}, {-diff.lo:.4g}]; stopping",
                               highlight=False)
        return passed

    def transfer(self, best: int) -> list[dict[str, Any]]:
        folder = self.run.run_dir / "transfer"
        skill_file = self.run.round_dir(best) / "skill_in.md"
        has_skill = bool(self._text(skill_file).strip())
        start = self.s.seed_start + HOLDOUT_OFFSET
        seeds = list(range(start, start + self.s.transfer_episodes))
        jobs = []
        for variant in self.run.variants or (Variant("base"),):
            for condition in CONDITIONS:
                skill = skill_file if condition == "with" and has_skill else None
                jobs += jobs_for(self.run, skill, seeds, f"transfer_{condition}", label(variant.name, condition),
                                 variant.kwargs)
        run_jobs(jobs, folder, f"{self.run.run_dir.name}-transfer", {"name": "improve-transfer", "best_round": best},
                 workers=self.s.workers, ray=self.run.ray, resume=True, console=self.console)
        rows = transfer_table(read_episodes(folder), lambda ln: episode_score(ln, str(self.metric)))
        write_json(self.run.run_dir / TRANSFER, {"best_round": best, "metric": self.metric, "seeds": seeds,
                                                 "variants": rows})
        return rows
