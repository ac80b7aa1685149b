"""Each env family's evaluation condition, declared as data beside its level files (`*.condition.toml`).

A bare `rtarena run ENV_ID` (no `--clock`) plays its family's condition: the paper's where a paper evaluates
the family (the arena: ROAR; browser tasks: Realtime-Bench; the game suite: OmniGameArena), ours, said so,
where none does (classic control, wrapped Gymnasium and PettingZoo envs, the contamination probe). Every
other setting is a named ablation. The file quotes the paper's words exactly, so `rtarena describe ENV_ID`,
`rtarena list` and docs/conditions.md say where each default comes from.

The clock is named as data (`[clock] clock = "paused"` and the clock's own settings); the run builds the
`Clock` from it once (`eval/flags.py`), so the env side stays free of the runtime.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field

from rtarena.errors import UserError
from rtarena.schema import PosFloat, PosInt, Section, read_toml, validate

ENVS = Path(__file__).parent
# family (`EnvSpec.family`) -> its condition file; browser web tasks and canvas games share Realtime-Bench's
FILES = {
    "arena": ENVS / "arena" / "levels" / "arena.condition.toml",
    "games": ENVS / "games" / "levels" / "games.condition.toml",
    "probe": ENVS / "games" / "levels" / "probe.condition.toml",
    "web": ENVS / "gui" / "browser.condition.toml",
    "gui-games": ENVS / "gui" / "browser.condition.toml",
    "classic": ENVS / "classic" / "classic.condition.toml",
    "wrapped": ENVS / "wrapped.condition.toml",  # `wrap_gymnasium` / `wrap_pettingzoo` (run_match's default)
}


class ConditionClock(Section):
    """The clock of the condition: a protocol name and its own settings (the clock class checks them when
    the run builds it, as for an experiment file's `[[clocks]]` entry)."""

    model_config = ConfigDict(extra="allow")
    clock: str = Field(description="a clock protocol name (runtime/clocks.py: CLOCKS)")

    def settings(self) -> dict[str, Any]:
        """The clock's own settings as the file gives them."""
        return dict(self.model_extra or {})


class ConditionView(Section):
    """What a model agent is sent by default, and the named text ablation."""

    modalities: tuple[str, ...] = Field(min_length=1, description="the model's default view")
    image_px: PosInt | None = Field(description="longest side of the image sent, pixels (None: no image)")
    about: str = Field(description="where the view and its size come from")


class Condition(Section):
    """One family's declared condition (see the module docstring)."""

    name: str = Field(description="the condition's short name, as the paper calls it")
    source: str = Field(description="the paper and section it follows, or `rtarena (no paper)`")
    quotes: tuple[str, ...] = Field(description="the paper's words, exactly (none for ours)")
    clock: ConditionClock
    dt_s: PosFloat | None = Field(None, description="simulated seconds per env step (none: each env's own)")
    chunks: str = Field(description="how a decision's actions are played: one per decision, or a chunk")
    latency: str = Field(description="what a decision's latency is charged from")
    view: ConditionView
    ablations: tuple[str, ...] = Field(description="the other settings, each a named ablation")

    def line(self) -> str:
        """One line naming the condition and its source (what a bare `rtarena run` prints)."""
        settings = "".join(f", {k}={v}" for k, v in self.clock.settings().items())
        dt = f", dt={self.dt_s:g} s" if self.dt_s is not None else ""
        return f"condition: {self.name} ({self.clock.clock}{settings}{dt}) from {self.source}"


@cache
def family_condition(family: str) -> Condition:
    """The declared condition of an env family, read and validated once."""
    path = FILES.get(family)
    if path is None:
        raise UserError(f"no condition is declared for the env family {family!r} (envs/conditions.py: FILES)",
                        field="family")
    return validate(Condition, read_toml(path, "condition file"), source=str(path))


def condition_file(family: str) -> Path:
    """The family's condition file, as a path inside the package (`envs/arena/levels/arena.condition.toml`)."""
    return FILES[family].relative_to(ENVS.parent)


def table_row(family: str) -> str:
    """The family's row of docs/conditions.md's table (the test reads the page back against this)."""
    c = family_condition(family)
    clock = " ".join([c.clock.clock, *(f"{k}={v}" for k, v in c.clock.settings().items())])
    view = "+".join(c.view.modalities) + (f" at {c.view.image_px} px" if c.view.image_px else "")
    quotes = " ".join(f"\u201c{q}\u201d" for q in c.quotes) or "(ours: no paper)"
    cells = [f"`{family}`", c.name, f"`{clock}`", f"{c.dt_s:g} s" if c.dt_s is not None else "the env's own",
             c.chunks, c.latency, view, c.source, quotes]
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


TABLE_HEADER = ("| family | condition | clock | dt | chunks and settle | latency charged | model's view | source "
                "| the paper's words |\n|---|---|---|---|---|---|---|---|---|")
