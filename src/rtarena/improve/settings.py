"""The settings of an improvement run: one typed schema (`rtarena.schema.Section`) read by the CLI,
improve files and Python alike, so a wrong value gives the same one line from each."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, PrivateAttr, model_validator

from rtarena.runtime.clocks import CLOCKS, Clock
from rtarena.schema import (
    Count,
    Fraction,
    NonNegInt,
    PosCount,
    PosFloat,
    PosInt,
    Section,
    Seed,
    SimMilliseconds,
    SimSeconds,
    at_most,
    validate,
)


class ImproveSettings(Section):
    """Everything an improvement run varies besides the env and the three model specs."""

    rounds: PosCount = Field(11, description="rounds played, round 0 (empty skill) included: R0..R10 (the paper's "
                           "ten reflection rounds)")
    episodes: Annotated[PosInt, at_most("run.seeds")] = Field(5, description="episodes per round (K)")
    seed_start: Seed = Field(0, description="first seed; every round plays the same K seeds (paired rounds)")
    max_steps: Annotated[PosInt, at_most("episode.steps")] | None = Field(
        None, description="step limit per episode (None: until the env ends it)")
    clock: Literal[tuple(CLOCKS)] = Field("paused", description="the player's clock")
    # The protocol of every episode (the paper's PDQ by default: paused, the chunk plays out, then the world
    # settles before the next observation); each is handed to the clock, which must take it.
    settle_s: SimSeconds | None = Field(0.2, description="seconds the world runs after a chunk has played, "
                                         "before the next observation (None: a newer decision replaces a chunk)")
    kappa: PosFloat | None = Field(None, description="token clock: tokens per simulated second")
    overhead_s: SimSeconds | None = Field(None, description="token clock: fixed seconds per decision")
    delay_ms: SimMilliseconds = Field(0.0, description="injected delay per decision, milliseconds")
    obs_every: Annotated[PosInt, at_most("step.every")] | None = Field(
        None, description="publish an observation every K steps (None: the env's own, 1)")
    latency: Literal["client", "server", "endpoint"] | None = Field(None, description="measured clock: which "
                                                                    "latency is charged (runtime/clocks.py)")
    latency_trace: str | None = Field(None, description="replay clock: the run or Parquet file whose latencies are "
                                      "replayed (runtime/latency_trace.py)")
    latency_model: Literal["empirical", "tokens"] | None = Field(None, description="replay clock: how latencies "
                                                                 "are drawn")
    metric: str | None = Field(None, description="the score column (default: score, else return)")
    alpha: Fraction = Field(0.5, description="rollback when a round mean < alpha x the best")
    judge_mode: Literal["binding", "advisory"] = Field("binding", description="binding: needs_revision blocks")
    max_validations: NonNegInt = Field(5, description="validate_skill calls per reflection")
    max_resubmissions: NonNegInt = Field(3, description="refused submit_skill calls before the skill is kept")
    max_turns: Annotated[int, at_most("option.count")] = Field(
        30, ge=2, description="reflector turns before the forced final call")
    skill_tokens: PosInt = Field(400, description="skill budget, tokens")
    skill_bullets: PosInt = Field(12, description="skill budget, bullets")
    notebook_tokens: PosInt = Field(2000, description="notebook budget, tokens")
    bullets_after_regression: NonNegInt = Field(2, description="bullets added+removed after a regressed round")
    read_chars: int = Field(8000, ge=100, description="read_text: characters returned at most")
    file_bytes: int = Field(5_000_000, ge=1000, description="largest file a tool opens, bytes")
    grep_matches: PosInt = Field(200, description="grep: matches returned at most")
    grep_seconds: float = Field(2.0, gt=0.0, le=60.0, description="grep: time limit of one search, seconds")
    image_px: int = Field(512, ge=16, description="read_image: longest side after resizing, pixels")
    bootstrap: Annotated[int, at_most("option.count")] = Field(
        2000, ge=100, description="bootstrap resamples for confidence intervals")
    confidence: float = Field(0.95, gt=0.0, lt=1.0, description="confidence level of intervals")
    frames: Count = Field(4, description="frames per episode the reflector is shown: the moments that decided it "
                          "(score changes, deaths, failed interactions, expired orders; improve/evidence.py), recorded "
                          "as MP4 (the video extra; 0: no video, no frames)")
    holdout_episodes: Annotated[NonNegInt, at_most("run.seeds")] = Field(
        0, description="held-out episodes per round for the best-skill choice")
    transfer_episodes: Annotated[NonNegInt, at_most("run.seeds")] = Field(
        0, description="episodes per variant and condition (0: no transfer)")
    transfer_every_round: bool = Field(False, description="every round also plays transfer_episodes held-out "
                                       "episodes per variant with its own skill (the curve shows both)")
    stop_rule: Literal["none", "peak"] = Field("none", description="peak: stop once a held-out round is clearly "
                                               "below the best one (a paired interval; needs holdout_episodes)")
    workers: NonNegInt = Field(1, description="episodes at once (0: one per CPU)")
    _clock: Clock = PrivateAttr()


    @model_validator(mode="after")
    def _needs(self) -> ImproveSettings:
        if self.transfer_every_round and not self.transfer_episodes:
            raise ValueError("transfer_every_round needs transfer_episodes >= 1 (--transfer N)")
        if self.stop_rule == "peak" and self.holdout_episodes < 2:
            raise ValueError("stop_rule peak needs holdout_episodes >= 2: it compares held-out rounds")
        return self

    @model_validator(mode="after")
    def _clock_takes_them(self) -> ImproveSettings:
        """The clock every episode of the run plays, built here once from the settings above: the clock class
        refuses a setting it does not take (`kappa` under `paused`) with the same line as `rtarena run`, and
        a replay clock's trace is read now, not when the first episode fails."""
        from rtarena.errors import UserError
        from rtarena.runtime.clocks import make_clock

        try:
            self._clock = make_clock(self.clock, settle_s=self.settle_s, kappa=self.kappa, overhead_s=self.overhead_s,
                                     delay_s=self.delay_ms / 1000.0 if self.delay_ms else None,
                                     obs_every=self.obs_every, latency=self.latency, latency_trace=self.latency_trace,
                                     latency_model=self.latency_model)
        except UserError as error:
            raise ValueError(str(error)) from None
        return self

    @property
    def run_clock(self) -> Clock:
        """The clock of every episode of the run (built by `_clock_takes_them`)."""
        return self._clock


def improve_settings(source: str = "rtarena improve", **values: Any) -> ImproveSettings:
    """`ImproveSettings` from keyword values (None: the default), or the project's one-line `UserError`."""
    return validate(ImproveSettings, {k: v for k, v in values.items() if v is not None}, source=source)
