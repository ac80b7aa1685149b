"""Constants the GUI tests share."""

from __future__ import annotations

from rtarena.envs.registry import ENV_TABLE

GUI_IDS = [spec.id for spec in ENV_TABLE if spec.family in ("web", "gui-games")]
FAST_OBS = ("marks", "goal", "time")  # no screenshot: the runs that only check outcomes stay quick
