"""The capability vocabularies, one home each: what an env can do, what a game rates and what a real-time
failure is coded as.

- `check_declaration`: the registry's check of an env's `capabilities` (`contract.EnvCapabilities`, the one
  typed declaration of every optional behaviour the runtime and agents use): a declaration, not a dict; a
  method for every capability it claims (`set_action_times` for `substep_s`, `privileged_state` for
  `privileged`); a declared capability for every such method it overrides; no capability left as a loose
  class attribute (`substep_s = 0.001` beside the declaration is a misspelling the runtime would never read).

- `GAME_CAPABILITIES`: the seven capabilities each suite game is rated on, 0 (not needed) to 3 (central),
  after OmniGameArena (paper 002); `GAME_ABBREV` their short names in tables and the radar chart.
- `REALTIME_CAPABILITIES`: Realtime-Bench's three real-time capabilities (paper 001), spelled as the paper
  spells them everywhere: the browser tasks' `capabilities` tags and the failure-mode codebook's
  `capability`; `REALTIME_SHORT` their one-letter chart legends.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from rtarena.contract import EnvCapabilities
from rtarena.envs.base import RealtimeParallelEnv, RealtimeWrapper

GAME_CAPABILITIES = ("visual_perception", "spatial_navigation", "reaction_time", "memory", "planning",
                     "adversarial", "cooperation")
GAME_ABBREV = dict(zip(GAME_CAPABILITIES, ("VP", "SN", "RT", "MEM", "PLN", "ADV", "COOP"), strict=True))

# Temporal state awareness, deliberation within the time left, deciding whether to act now (paper 001, 1).
REALTIME_CAPABILITIES = ("RT-Perceive", "RT-Deliberate", "RT-Act")
REALTIME_SHORT = dict(zip(REALTIME_CAPABILITIES, ("P", "D", "A"), strict=True))

# names that once were loose attributes; a class may no longer carry them outside its declaration
LOOSE = (*(f.name for f in fields(EnvCapabilities)), "privileged_queries")


def check_declaration(env: Any) -> EnvCapabilities:
    """The env's (class or instance) capability declaration, checked against what it implements; a
    `TypeError` naming the class and the capability otherwise (an internal bug, found at registration)."""
    cls = env if isinstance(env, type) else type(env)
    name = cls.__name__
    if issubclass(cls, RealtimeWrapper):
        return env.capabilities if env is not cls else EnvCapabilities()  # it forwards its env's declaration
    if not issubclass(cls, RealtimeParallelEnv):
        raise TypeError(f"{name} is not an rtarena env: subclass RealtimeParallelEnv or wrap it (rtarena.wrap_*)")
    declared = env.capabilities
    if not isinstance(declared, EnvCapabilities):
        raise TypeError(f"{name}.capabilities must be an EnvCapabilities declaration, got {declared!r}")
    for klass in cls.__mro__:
        for loose in LOOSE:
            value = klass.__dict__.get(loose)
            if value is not None and not isinstance(value, property):
                fix = "privileged=True" if loose == "privileged_queries" else f"{loose}=..."
                raise TypeError(f"{klass.__name__}.{loose} is a loose attribute the runtime never reads; "
                                f"declare it: capabilities = EnvCapabilities({fix})")
    base = RealtimeParallelEnv
    times = cls.set_action_times is not base.set_action_times
    snapshot = cls.privileged_state is not base.privileged_state
    if declared.substep_s is not None and not times:
        raise TypeError(f"{name} declares capabilities.substep_s but does not implement set_action_times()")
    if declared.privileged and not snapshot:
        raise TypeError(f"{name} declares capabilities.privileged but does not implement privileged_state()")
    if snapshot and not declared.privileged:
        raise TypeError(f"{name} implements privileged_state() but does not declare capabilities.privileged")
    return declared


__all__ = ["GAME_ABBREV", "GAME_CAPABILITIES", "LOOSE", "REALTIME_CAPABILITIES", "REALTIME_SHORT",
           "check_declaration"]
