"""The one table of registered envs, and `make`.

Each row names an env id, where its class or factory lives, and default keyword arguments. Tests walk
this table, so an env is tested the day its row is added. Rows are also registered with PettingZoo's
parallel registry and, for one-agent envs, with Gymnasium's (as a single-agent view).

A row's class is checked when the row is loaded (`EnvSpec.load`), a factory's product when `make` builds it:
its `capabilities` must be a valid declaration that matches what it implements (`envs/capabilities.py:
check_declaration`), so a misspelt or missing capability fails at registration, not as a feature silently off.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtarena.envs.capabilities import check_declaration
from rtarena.envs.gui.catalog import task_rows
from rtarena.envs.level_files import read_tables
from rtarena.envs.single_agent import SingleAgentView
from rtarena.errors import UserError


@dataclass(frozen=True)
class EnvSpec:
    """One registered env: its id, `"module:attr"` entry point and default kwargs."""

    id: str
    entry_point: str
    summary: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    single_agent: bool = False
    family: str = ""
    extra: str | None = None  # the pip extra its imports need, for the error message
    # env kwargs that name a folder the env fills with files worth keeping beside the episode's records
    # (kwarg -> subfolder of the run, e.g. {"screenshot_dir": "screenshots"})
    artifact_kwargs: dict[str, str] = field(default_factory=dict)

    def load(self):
        module_name, attr = self.entry_point.split(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            hint = f" (pip install 'rtarena[{self.extra}]')" if self.extra else ""
            raise UserError(f"env {self.id!r} needs a missing package: {error.name}{hint}") from error
        creator = vars(module)[attr]
        if isinstance(creator, type):
            check_declaration(creator)
        return creator


SCREENSHOTS = {"screenshot_dir": "screenshots"}
ENVS = Path(__file__).parent
ARENA_LEVELS, GAME_LEVELS = ENVS / "arena" / "levels", ENVS / "games" / "levels"

# The game suite (envs/games): each game is registered as `games/<name>-v0` and, for its three variants
# (level-file overrides), `games/<name>-var1-v0` ... `-var3-v0`. A row's summary is the `summary` line of
# the game's level file (`envs/games/levels/<name>.toml`), as a browser task's is its task file's.
GAMES = [
    ("errands", "rtarena.envs.games.errands:Errands"),
    ("escape", "rtarena.envs.games.escape:Escape"),
    ("monsters", "rtarena.envs.games.monsters:Monsters"),
    ("parkour3d", "rtarena.envs.games.parkour3d:Parkour3D"),
    ("runner2d", "rtarena.envs.games.runner2d:Runner2D"),
    ("tilefall", "rtarena.envs.games.tilefall:Tilefall"),
    ("workshop", "rtarena.envs.games.workshop:Workshop"),
]
VARIANTS = ("var1", "var2", "var3")
# The suite's multiplayer games (PvP and co-op): rows like the solo games', for two (or more) players.
MP_GAMES = [
    ("duel", "rtarena.envs.games.duel:Duel"),
    ("kitchen", "rtarena.envs.games.kitchen:Kitchen"),
    ("handoff", "rtarena.envs.games.handoff:Handoff"),
    ("midline", "rtarena.envs.games.midline:MidlineRace"),
    ("crystal", "rtarena.envs.games.crystal:Crystal"),
]
# The arena levels (envs/arena/levels/<name>.toml): name, class, one agent?
ARENA = [
    ("basic", "rtarena.envs.arena.levels:BasicLevel", True),
    ("coop", "rtarena.envs.arena.levels:CoopLevel", False),
    ("competitive", "rtarena.envs.arena.levels:CompetitiveLevel", False),
    ("mixed", "rtarena.envs.arena.levels:MixedLevel", False),
]


def level_summary(home: Path, name: str) -> str:
    """The `summary` line of a level file (its `extends` chain resolved), without validating the rest."""
    return read_tables(f"{name}.toml", home)["summary"]


def game_rows(name: str, entry_point: str, single_agent: bool = True) -> list[EnvSpec]:
    summary = level_summary(GAME_LEVELS, name)
    rows = [EnvSpec(f"games/{name}-v0", entry_point, f"Game: {summary}.", single_agent=single_agent,
                    family="games", extra="arena")]
    for variant in VARIANTS:
        rows.append(EnvSpec(f"games/{name}-{variant}-v0", entry_point, f"Game: {summary} ({variant}).",
                            {"variant": variant}, single_agent=single_agent, family="games", extra="arena"))
    return rows


def arena_row(name: str, entry_point: str, single_agent: bool) -> EnvSpec:
    return EnvSpec(f"arena/{name}-v0", entry_point, f"Arena: {level_summary(ARENA_LEVELS, name)}.",
                   single_agent=single_agent, family="arena", extra="arena")


ENV_TABLE: list[EnvSpec] = [
    EnvSpec(
        "classic/cartpole-v0",
        "rtarena.envs.classic.cartpole:make_cartpole",
        "Gymnasium's CartPole-v1 with the runtime's dt as its physics step (0.02 s).",
        {"dt": 0.02},
        single_agent=True,
        family="classic",
    ),
    *(arena_row(*level) for level in ARENA),
    *(row for game in GAMES for row in game_rows(*game)),
    *(row for game in MP_GAMES for row in game_rows(*game, single_agent=False)),
    EnvSpec("probe/identify-v0", "rtarena.envs.games.identify:IdentifyProbe",
            "Contamination probe: three frames of a suite game (game=...); can a model name it and its mechanics?",
            single_agent=True, family="probe", extra="arena", artifact_kwargs={"frames_dir": "frames"}),
]

# Browser tasks: one row per task file (`envs/gui/tasks/*.toml`), so a new task needs no Python edit.
ENV_TABLE += [EnvSpec(row.env_id, "rtarena.envs.gui.env:BrowserTaskEnv", row.summary, {"task": row.task},
                      single_agent=True, family=row.family, extra="gui", artifact_kwargs=SCREENSHOTS)
              for row in task_rows()]


def registry_ids() -> list[str]:
    """Every registered env id, in table order."""
    return [spec.id for spec in ENV_TABLE]


def registered(env_id: str) -> EnvSpec | None:
    """The row of `env_id`, or None for an env outside the registry (a wrapped or hand-built one)."""
    return next((spec for spec in ENV_TABLE if spec.id == env_id), None)


def env_spec(env_id: str) -> EnvSpec:
    """The row of `env_id`, or a one-line error that suggests the nearest ids."""
    spec = registered(env_id)
    if spec is not None:
        return spec
    close = difflib.get_close_matches(env_id, registry_ids(), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `rtarena list` shows them all"
    raise UserError(f"unknown env id {env_id!r}{hint}", field="env_id")


def make(env_id: str, **kwargs: Any):
    """Build a registered env: `rtarena.make("classic/cartpole-v0", dt=0.02)`."""
    spec = env_spec(env_id)
    creator = spec.load()
    env = creator(**{**spec.kwargs, **kwargs})
    check_declaration(env)  # an instance may refine its class's declaration; a factory's product is checked here
    env.spec_id = spec.id
    return env


def _register_with_ecosystem() -> None:
    """Make each row reachable through `pettingzoo.make` and, for one-agent envs, `gymnasium.make`."""
    import gymnasium
    from pettingzoo.env_registry import registration

    for spec in ENV_TABLE:
        if spec.id not in registration.parallel_registry:
            registration.register("parallel", spec.id, entry_point=_factory(spec.id))
        if spec.single_agent and spec.id not in gymnasium.registry:
            # A plain function, not the class: gymnasium then takes the render modes from the built env
            # instead of checking them against a class attribute shared by every view.
            gymnasium.register(spec.id, entry_point=_single_agent_factory(spec.id))


def _single_agent_factory(env_id: str):
    def create(render_mode: str | None = None, **kwargs: Any):
        if render_mode is not None:
            kwargs["render_mode"] = render_mode
        return SingleAgentView(make(env_id, **kwargs))

    return create


def _factory(env_id: str):
    def create(**kwargs: Any):
        return make(env_id, **kwargs)

    create.__name__ = f"make_{env_id.replace('/', '_').replace('-', '_')}"
    return create
