"""rtarena: a toolkit for testing AI agents that must act in real time.

The root package is light: its attributes load on first use (PEP 562), so `import rtarena.errors` or
`import rtarena.contract` pays for those modules only, not for gymnasium, pettingzoo, pydantic and the env
table. Importing `rtarena.envs` (which `rtarena.make`, `rtarena.ENV_TABLE` and every env module do)
registers each env with PettingZoo and, for one-agent envs, Gymnasium; `gymnasium.make("rtarena.envs:
arena/basic-v0")` does that import itself.
"""

from importlib import import_module as _import_module

import rtarena.numba_cache  # noqa: F401  (first: sets NUMBA_CACHE_DIR before any module imports numba)

__version__ = "0.1.0"

# attribute -> the module that defines it, imported on first access
_LAZY = {
    "Agent": "rtarena.contract", "AgentContext": "rtarena.contract", "Decision": "rtarena.contract",
    "UserError": "rtarena.errors",
    "ENV_TABLE": "rtarena.envs.registry", "make": "rtarena.envs.registry", "registry_ids": "rtarena.envs.registry",
    "wrap_gymnasium": "rtarena.envs.adapters", "wrap_pettingzoo": "rtarena.envs.adapters",
    "MatchResult": "rtarena.runtime", "make_clock": "rtarena.runtime", "run_match": "rtarena.runtime",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rtarena' has no attribute {name!r}")
    value = getattr(_import_module(module), name)
    globals()[name] = value  # later reads skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*(k for k in globals() if not k.startswith("_")), *_LAZY, "__version__"})
