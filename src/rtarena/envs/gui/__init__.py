"""Browser tasks: web tasks and canvas games in a real Chromium whose clock the env controls.

`BrowserTaskEnv` (env.py) owns the protocol; each task is a TOML spec in `tasks/` plus a page in `pages/`
(served from 127.0.0.1), registered in `rtarena.envs.registry`. See `actions.describe()` for the GUI
action set, and `rtarena.agents.gui_oracle` for the oracle that proves each task feasible.
"""

from rtarena.envs.gui.actions import describe
from rtarena.envs.gui.env import BrowserTaskEnv, make_task
from rtarena.envs.gui.spec import TaskSpec, load_spec

__all__ = ["BrowserTaskEnv", "TaskSpec", "describe", "load_spec", "make_task"]
