"""The settings of an improvement run: one typed schema read by the CLI, experiment files and Python.

Units and ranges are in the schema; a wrong value gives one `UserError` line naming the flag and value.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rtarena.errors import UserError


class ImproveSettings(BaseModel):
    """Everything an improvement run varies besides the env and the three model specs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rounds: int = Field(10, ge=1, description="rounds played, round 0 (empty skill) included")
    episodes: int = Field(5, ge=1, description="episodes per round (K)")
    seed_start: int = Field(0, description="first seed; every round plays the same K seeds (paired rounds)")
    max_steps: int = Field(500, ge=1, description="step limit per episode")
    clock: str = Field("paused", description="clock protocol of the player's episodes")
    metric: str | None = Field(None, description="the score column (default: score, else return)")
    alpha: float = Field(0.5, ge=0.0, le=1.0, description="rollback when a round mean < alpha x the best")
    judge_mode: str = Field("binding", pattern="^(binding|advisory)$", description="binding: needs_revision blocks")
    max_validations: int = Field(5, ge=0, description="validate_skill calls per reflection")
    max_resubmissions: int = Field(3, ge=0, description="refused submit_skill calls before the skill is kept")
    max_turns: int = Field(30, ge=2, description="reflector turns before the forced final call")
    skill_tokens: int = Field(400, ge=1, description="skill budget, tokens")
    skill_bullets: int = Field(12, ge=1, description="skill budget, bullets")
    notebook_tokens: int = Field(2000, ge=1, description="notebook budget, tokens")
    bullets_after_regression: int = Field(2, ge=0, description="bullets added+removed after a regressed round")
    read_chars: int = Field(8000, ge=100, description="read_text: characters returned at most")
    file_bytes: int = Field(5_000_000, ge=1000, description="largest file a tool opens, bytes")
    grep_matches: int = Field(200, ge=1, description="grep: matches returned at most")
    image_px: int = Field(512, ge=16, description="read_image: longest side after resizing, pixels")
    bootstrap: int = Field(2000, ge=100, description="bootstrap resamples for confidence intervals")
    confidence: float = Field(0.95, gt=0.0, lt=1.0, description="confidence level of intervals")
    frames: int = Field(0, ge=0, description="frames per episode for the reflector (recorded as MP4; needs video)")
    holdout_episodes: int = Field(0, ge=0, description="held-out episodes per round for the best-skill choice")
    transfer_episodes: int = Field(0, ge=0, description="episodes per variant and condition (0: no transfer)")
    workers: int = Field(1, ge=0, description="episodes at once (0: one per CPU)")


def improve_settings(source: str = "rtarena improve", **values: Any) -> ImproveSettings:
    """`ImproveSettings` from keyword values, or a one-line `UserError` naming the first bad one."""
    try:
        return ImproveSettings(**{k: v for k, v in values.items() if v is not None})
    except ValidationError as error:
        first = error.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else "?"
        raise UserError(f"{first['msg']}, got {first.get('input')!r}", source=source,
                        field="--" + name.replace("_", "-")) from None
