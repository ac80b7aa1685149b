"""What the runtime reads from an env for its agents: documentation, never state (`contract.EnvDocs`).

Agents get these strings in `AgentContext.docs` instead of the env object, so a model agent's prompt can
describe the game while nothing but a privileged bot's snapshots (`PrivilegedFeed`) carry world state. Every
read is a member of the env contract (`contract.RealtimeEnv`, defaults in `envs/base.py`), never a probe.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Sequence
from typing import Any

from rtarena.contract import EnvDocs


def env_docs(env: Any, agents: Sequence[str]) -> EnvDocs:
    """The documentation of `env` for a controller owning `agents`."""
    module = sys.modules.get(type(env.unwrapped).__module__)  # the family's module, under any wrapper
    names = env.capabilities.action_names
    rules = env.rules_text()
    return EnvDocs(
        class_doc=env.documentation(),  # a level's docstring is filled from the rules in force
        family_doc=inspect.getdoc(module) if module is not None else None,
        rules_text=str(rules) if rules is not None else None,
        action_names=dict.fromkeys(agents, names),
        instruction=str(env.instruction or "") or None,
    )
