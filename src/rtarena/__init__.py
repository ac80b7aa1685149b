"""rtarena: a toolkit for testing AI agents that must act in real time."""

from rtarena.contract import Agent, AgentContext, Decision
from rtarena.envs.adapters import wrap_gymnasium, wrap_pettingzoo
from rtarena.envs.registry import ENV_TABLE, make, registry_ids
from rtarena.errors import UserError
from rtarena.runtime import MatchResult, make_clock, run_match

__version__ = "0.1.0"

__all__ = [
    "ENV_TABLE", "Agent", "AgentContext", "Decision", "MatchResult", "UserError", "make", "make_clock",
    "registry_ids", "run_match", "wrap_gymnasium", "wrap_pettingzoo",
]


def _register() -> None:
    from rtarena.envs.registry import _register_with_ecosystem

    _register_with_ecosystem()


_register()
