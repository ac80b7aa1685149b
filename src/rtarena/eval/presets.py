"""Presets: experiment files bundled with the package (`rtarena presets`, `rtarena run --preset NAME`).

Each is an ordinary experiment file in `eval/presets/`; copy one to start your own.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from rtarena.errors import UserError
from rtarena.eval.experiment import Experiment
from rtarena.eval.experiment_file import load_experiment, read_file

FOLDER = Path(__file__).parent / "presets"


def preset_names() -> list[str]:
    return sorted(path.stem for path in FOLDER.glob("*.toml"))


def preset_path(name: str) -> Path:
    path = FOLDER / f"{name}.toml"
    if not path.exists():
        close = difflib.get_close_matches(name, preset_names(), n=2)
        hint = f"did you mean {', '.join(close)}?" if close else f"presets: {', '.join(preset_names())}"
        raise UserError(f"unknown preset {name!r}; {hint}", field="--preset")
    return path


def preset_summary(name: str) -> tuple[str, dict]:
    """A preset's description and its declared parameters, without validating it."""
    data = read_file(preset_path(name))
    return data.get("description", ""), data.get("params", {})


def load_preset(name: str, params: dict[str, str] | None = None, strict: bool = True) -> Experiment:
    return load_experiment(preset_path(name), params=params, strict=strict)
