"""The reflector's submission tools: the previous skill, the diagnosis, the judge, the skill.

Order and limits are enforced here, not in the prompt: `submit_skill` is refused before
`submit_diagnosis`; `validate_skill` answers at most `max_validations` times; with a binding judge a
skill whose latest verdict is not `pass` is always refused -- once the validation budget is spent, such a
submission ends the reflection and the previous skill is kept (recorded in `submissions.jsonl` and the
round's reflection reason: the binding never lapses); every submission goes
through the budgets and content lints of `lints.py`, and after `max_resubmissions` refused submissions the
reflection ends with the skill unchanged. Each verdict and each submission is appended to the round's
`verdicts.jsonl` / `submissions.jsonl`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtarena.eval.store import append_line, write_bytes
from rtarena.improve.lints import check_submission, normalised
from rtarena.improve.settings import ImproveSettings
from rtarena.improve.tools import ToolRefusal


@dataclass
class RoundState:
    """What the reflection of one round starts from."""

    index: int
    skill: str  # the skill this round was played with
    notebook: str  # the notebook the previous reflection left
    regressed: bool  # this round scored below the round before
    lint_codes: list[str]
    rolled_back_skill: str | None = None  # set when this round replayed the best skill after a rollback
    best_round: int = 0


@dataclass
class Submissions:
    """The submission tools of one reflection, writing into the round folder."""

    folder: Path
    state: RoundState
    settings: ImproveSettings
    judge: Any  # improve.judge.Judge (or anything with `.verdict(...)`)
    diagnosis: dict[str, Any] | None = None
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    refusals: int = 0
    accepted: tuple[str, str] | None = None  # (skill, notebook)
    closed: str | None = None  # why the reflection must end (resubmission budget spent)

    def get_previous_skill(self) -> dict[str, Any]:
        """The skill this round was played with and the notebook the last reflection left, to start from.

        Args:
        """
        return {"round": self.state.index, "skill": self.state.skill, "notebook": self.state.notebook,
                "rolled_back_skill": self.state.rolled_back_skill, "best_round": self.state.best_round}

    def submit_diagnosis(self, failure_modes: list[str], causes: list[str], prescriptions: list[str],
                         additions: list[str], deletions: list[str], lints_response: str) -> dict[str, Any]:
        """Record the diagnosis of this round, before any skill: what failed, why, and what to change.

        Args:
            failure_modes: what went wrong in the episodes, as observed (no causes here).
            causes: why it went wrong, kept apart from what to do about it.
            prescriptions: what the skill should change, one line each.
            additions: the skill lines to add, verbatim as they will appear.
            deletions: the skill lines to remove, verbatim as they appear now.
            lints_response: how each signal of lints.md is addressed (name each signal).
        """
        self.diagnosis = {"round": self.state.index, "failure_modes": failure_modes, "causes": causes,
                          "prescriptions": prescriptions, "additions": additions, "deletions": deletions,
                          "lints_response": lints_response}
        write_bytes(self.folder / "diagnosis.json", (json.dumps(self.diagnosis, indent=1) + "\n").encode())
        write_bytes(self.folder / "diagnosis.md", diagnosis_markdown(self.diagnosis).encode())
        return {"recorded": True}

    def validate_skill(self, skill: str) -> dict[str, Any]:
        """Ask the judge whether a proposed skill follows the rules; the verdict is recorded.

        Args:
            skill: the full skill text you intend to submit.
        """
        if len(self.verdicts) >= self.settings.max_validations:
            raise ToolRefusal(f"the validation budget ({self.settings.max_validations} calls) is spent")
        verdict = self.judge.verdict(skill, self.diagnosis, self.state.skill, self.state.lint_codes)
        row = {"round": self.state.index, "call": len(self.verdicts) + 1, "skill": skill, **verdict,
               "judge": getattr(self.judge, "spec", ""), "mode": self.settings.judge_mode}
        self.verdicts.append(row)
        append_line(self.folder / "verdicts.jsonl", row)
        return verdict

    def submit_skill(self, skill: str, notebook: str) -> dict[str, Any]:
        """Submit the skill for the next round and the notebook for the next reflection.

        Args:
            skill: the skill text, a few bullet lines of advice for the player.
            notebook: notes to your future self (what was tried, what helped, what harmed); within budget.
        """
        problems = self._problems(skill, notebook)
        append_line(self.folder / "submissions.jsonl",
                    {"round": self.state.index, "skill": skill, "notebook": notebook,
                     "accepted": not problems, "problems": problems})
        if problems:
            self.refusals += 1
            if self.refusals > self.settings.max_resubmissions:
                self.closed = f"{self.refusals} refused submissions: the skill stays as it was"
            raise ToolRefusal("refused: " + "; ".join(problems)
                              + (f" ({self.closed})" if self.closed else
                                 f" ({self.settings.max_resubmissions - self.refusals + 1} submissions left)"))
        self.accepted = (skill, notebook)
        return {"accepted": True}

    def _problems(self, skill: str, notebook: str) -> list[str]:
        if self.diagnosis is None:
            return ["order: submit_diagnosis must come before submit_skill"]
        found = [p.line() for p in check_submission(skill, notebook, self.state.skill, self.state.regressed,
                                                    self.settings)]
        if self.settings.judge_mode == "binding":
            latest = next((v for v in reversed(self.verdicts) if normalised(v["skill"]) == normalised(skill)), None)
            if latest is None:
                found.append("judge: validate this skill with validate_skill first (the judge is binding)")
            elif latest["verdict"] != "pass":
                found.append(f"judge: the judge's verdict on this skill is {latest['verdict']} (binding)")
            if (latest is None or latest["verdict"] != "pass") and len(self.verdicts) >= self.settings.max_validations:
                self.closed = (f"validation budget ({self.settings.max_validations} calls) spent without a pass: "
                               "the unvalidated skill is refused and the previous skill kept")
        return found


def diagnosis_markdown(d: dict[str, Any]) -> str:
    parts = [f"# Diagnosis after round {d['round']}"]
    for key, title in (("failure_modes", "Failure modes"), ("causes", "Causes"), ("prescriptions", "Prescriptions"),
                       ("additions", "Additions"), ("deletions", "Deletions")):
        parts += ["", f"## {title}"] + [f"- {item}" for item in d.get(key) or []] + ([] if d.get(key) else ["(none)"])
    parts += ["", "## Signals", str(d.get("lints_response") or "")]
    return "\n".join(parts) + "\n"
