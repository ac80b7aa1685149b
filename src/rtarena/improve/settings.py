"""The settings of an improvement run: one typed schema (`rtarena.schema.Section`) read by the CLI,
improve files and Python alike, so a wrong value gives the same one line from each."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from rtarena.schema import Fraction, NonNegInt, PosInt, Section, validate


class ImproveSettings(Section):
    """Everything an improvement run varies besides the env and the three model specs."""

    rounds: PosInt = Field(10, description="rounds played, round 0 (empty skill) included")
    episodes: PosInt = Field(5, description="episodes per round (K)")
    seed_start: NonNegInt = Field(0, description="first seed; every round plays the same K seeds (paired rounds)")
    max_steps: PosInt = Field(500, description="step limit per episode")
    clock: Literal["wall", "paused", "token", "measured"] = Field("paused", description="the player's clock")
    metric: str | None = Field(None, description="the score column (default: score, else return)")
    alpha: Fraction = Field(0.5, description="rollback when a round mean < alpha x the best")
    judge_mode: Literal["binding", "advisory"] = Field("binding", description="binding: needs_revision blocks")
    max_validations: NonNegInt = Field(5, description="validate_skill calls per reflection")
    max_resubmissions: NonNegInt = Field(3, description="refused submit_skill calls before the skill is kept")
    max_turns: int = Field(30, ge=2, description="reflector turns before the forced final call")
    skill_tokens: PosInt = Field(400, description="skill budget, tokens")
    skill_bullets: PosInt = Field(12, description="skill budget, bullets")
    notebook_tokens: PosInt = Field(2000, description="notebook budget, tokens")
    bullets_after_regression: NonNegInt = Field(2, description="bullets added+removed after a regressed round")
    read_chars: int = Field(8000, ge=100, description="read_text: characters returned at most")
    file_bytes: int = Field(5_000_000, ge=1000, description="largest file a tool opens, bytes")
    grep_matches: PosInt = Field(200, description="grep: matches returned at most")
    grep_seconds: float = Field(2.0, gt=0.0, le=60.0, description="grep: time limit of one search, seconds")
    image_px: int = Field(512, ge=16, description="read_image: longest side after resizing, pixels")
    bootstrap: int = Field(2000, ge=100, description="bootstrap resamples for confidence intervals")
    confidence: float = Field(0.95, gt=0.0, lt=1.0, description="confidence level of intervals")
    frames: NonNegInt = Field(0, description="frames per episode for the reflector (recorded as MP4; needs video)")
    holdout_episodes: NonNegInt = Field(0, description="held-out episodes per round for the best-skill choice")
    transfer_episodes: NonNegInt = Field(0, description="episodes per variant and condition (0: no transfer)")
    workers: NonNegInt = Field(1, description="episodes at once (0: one per CPU)")


def improve_settings(source: str = "rtarena improve", **values: Any) -> ImproveSettings:
    """`ImproveSettings` from keyword values (None: the default), or the project's one-line `UserError`."""
    return validate(ImproveSettings, {k: v for k, v in values.items() if v is not None}, source=source)
