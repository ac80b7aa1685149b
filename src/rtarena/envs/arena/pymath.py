"""CPython's `math.hypot`, compiled: the arena's rules were first written in Python, and a compiled kernel
that must give byte-identical records (issue 19) cannot use the C library's `hypot` instead, which differs
from CPython's (a correctly rounded algorithm since 3.10) in the last bit for about 1 in 170 arguments.

This is CPython's `vector_norm` for two coordinates (Modules/mathmodule.c, 3.10 and 3.11): scaling by a power
of two, lossless squaring (Dekker's split) and summing, a square root and one differential correction.
"""

from __future__ import annotations

import math

from rtarena.envs.arena.kernel_cache import kernel

VELTKAMP = 134217729.0  # 2 ** 27 + 1


@kernel
def _square(x):
    """x * x as an exact sum hi + lo (Dekker's mul12 of x by itself)."""
    t = x * VELTKAMP
    hi = t - (t - x)
    lo = x - hi
    p = hi * hi
    q = hi * lo + lo * hi
    z = p + q
    return z, p - z + q + lo * lo


@kernel
def py_hypot(x, y):
    """`math.hypot(x, y)` exactly as CPython computes it (finite, normal arguments)."""
    x, y = abs(x), abs(y)
    if math.isinf(x) or math.isinf(y):
        return math.inf
    if math.isnan(x) or math.isnan(y):
        return math.nan
    m = max(x, y)
    if m == 0.0:
        return m
    scale = math.ldexp(1.0, -math.frexp(m)[1])
    csum, frac1, frac2 = 1.0, 0.0, 0.0
    for v in (x * scale, y * scale):
        hi, lo = _square(v)
        s = csum + hi
        frac2 += hi - (s - csum)
        csum = s
        frac1 += lo
    h = math.sqrt(csum - 1.0 + (frac1 + frac2))
    hi, lo = _square(h)
    hi, lo = -hi, -lo
    s = csum + hi
    frac2 += hi - (s - csum)
    csum = s
    frac1 += lo
    h += (csum - 1.0 + (frac1 + frac2)) / (2.0 * h)
    return h / scale
