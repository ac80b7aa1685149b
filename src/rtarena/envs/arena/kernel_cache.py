"""`@kernel`: numba's `njit(cache=True)` for the world step's kernels, with a cache that notices edits.

numba keys a cached function on its own source file only, yet a compiled caller carries its callees' code:
after an edit to `turret.py`, the cached `sim.simulate` would keep running the old turret rules until
`sim.py` itself changed (issue 19 put the whole step into one compiled call, so this would bite whoever
changes a rule). The kernels decorated here share one freshness stamp, a hash of every module the step
compiles in (`STEP_MODULES`): an edit to any of them recompiles them all once, on the next run.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from numba import njit
from numba.core import caching

HERE = Path(__file__).parent
# every module whose compiled code ends up in the world step (`sim.simulate` and what it calls), and the
# observations' kernels that compile in one of them: `perception` (`visibility`'s slab test) and
# `audio/sources` (`pymath`'s hypot); the fused step (`fused.py`) and the render kernels it compiles in
STEP_MODULES = ("world", "visibility", "events", "pymath", "physics", "combat", "turret", "chickens", "pickups",
                "zone", "random_state", "sim", "kernel_cache", "perception", "audio/sources", "fused", "render/raycast",
                "render/hud", "render/tables", "render/maps", "render/draw", "render/scene")


def _stamp() -> bytes | None:
    """One hash of the step's modules; None where a file cannot be read (then numba's own stamp stays)."""
    digest = hashlib.sha256()
    for name in STEP_MODULES:
        try:
            digest.update((HERE / f"{name}.py").read_bytes())
        except OSError:
            return None
    return digest.digest()


STAMP = _stamp()


def _numba(name: str):
    """A class of numba's caching module, public since about 0.59 and underscored before."""
    return getattr(caching, name, None) or getattr(caching, f"_{name}", None)


LOCATORS = tuple(_numba(n) for n in ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator"))
_Cache = None
if STAMP is not None and all(LOCATORS) and _numba("CompileResultCacheImpl") and _numba("FunctionCache"):

    class _StepStamp:
        def get_source_stamp(self):  # numba's locator API: what an index entry must match to be used
            return STAMP

    class _StepCacheImpl(_numba("CompileResultCacheImpl")):
        _locator_classes = tuple(type(f"Step{base.__name__.lstrip('_')}", (_StepStamp, base), {}) for base in LOCATORS)

    class _StepCache(_numba("FunctionCache")):
        _impl_class = _StepCacheImpl

    _Cache = _StepCache


def kernel(fn=None, **options):
    """`@kernel` / `@kernel(nogil=True)`: compiled like `njit(cache=True, ...)`, cached under the step's stamp."""
    if fn is None:
        return lambda f: kernel(f, **options)
    if _Cache is None:  # numba's caching internals moved: its own cache (stale callees after edits)
        return njit(cache=True, **options)(fn)
    dispatcher = njit(**options)(fn)
    dispatcher._cache = _Cache(dispatcher.py_func)
    return dispatcher
