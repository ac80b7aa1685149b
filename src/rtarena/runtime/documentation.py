"""What the runtime reads from an env for its agents: documentation, never state (`contract.EnvDocs`).

Agents get these strings in `AgentContext.docs` instead of the env object, so a model agent's prompt can
describe the game while nothing but a privileged bot can reach the world.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Sequence
from typing import Any

from rtarena.contract import EnvDocs, ReadOnlyView


def env_docs(env: Any, agents: Sequence[str]) -> EnvDocs:
    """The documentation of `env` for a controller owning `agents`."""
    module = sys.modules.get(type(env).__module__)
    own = getattr(env, "documentation", None)  # an env whose docstring is filled from the rules in force
    return EnvDocs(
        class_doc=own() if callable(own) else type(env).__doc__,
        family_doc=inspect.getdoc(module) if module is not None else None,
        rules_text=level_rules(env),
        action_names={a: action_names(env, a) for a in agents},
        instruction=str(getattr(env, "instruction", "") or "") or None,
    )


def action_names(env: Any, agent: str) -> tuple[str, ...] | None:
    """Field names of an agent's action vector, where the env declares them: an `action_names` attribute
    (or method of the agent id), else an `ACTION_NAMES` constant in the module of its class or a base."""
    names = getattr(env, "action_names", None)
    if callable(names):
        names = names(agent)
    if not names:
        for cls in type(env).__mro__:
            names = getattr(sys.modules.get(cls.__module__), "ACTION_NAMES", None)
            if names:
                break
    return tuple(names) if names else None


def level_rules(env: Any) -> str | None:
    """The numbers of the level's data file as this run uses them (overrides included), one table a line.

    An env offers them as `rules_text()`, or as a `rules` object with a `text()` method (the arena's
    `LevelRules`, whose text leaves out the procedural-layout table: it says how the map was made, not how
    the game plays).
    """
    if callable(getattr(env, "rules_text", None)):
        return str(env.rules_text())
    text = getattr(getattr(env, "rules", None), "text", None)
    return str(text()) if callable(text) else None


def privileged_view(env: Any) -> ReadOnlyView:
    """What a privileged agent may read: a live view of `env` that answers the queries its family declares
    (`privileged_queries`; none for an env that declares none) with copies, and refuses the rest."""
    return ReadOnlyView(env, getattr(env, "privileged_queries", ()))
