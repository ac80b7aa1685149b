"""The env's numpy `Generator`, handed to the compiled world step as five numbers instead of as an object.

numba types and unboxes a `Generator` argument in Python on every call (a `typeof` fallback, then three
`ctypes.cast` calls on its bit generator): about 7 us a step, a twentieth of a one-agent pixel step
(issue 19). The numbers are what that unboxing reads (the bit generator's state addresses and its
`next_uint64`, `next_uint32` and `next_double` functions), worked out once per `Generator`; the kernel
rebuilds the same compiled `Generator` from them (`generator`), so every draw comes from the same state by
the same code, and the `Generator` object itself stays with the env, alive for the whole call.
"""

from __future__ import annotations

import ctypes

import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic

# numba's own model of a Generator's bit generator (`numba/np/random/generator_core.py`)
_BIT_GENERATOR = types.NumPyRandomBitGeneratorType("bit_generator")
FIELDS = ("state_address", "state", "fnptr_next_uint64", "fnptr_next_uint32", "fnptr_next_double")


def pointers(rng: np.random.Generator) -> np.ndarray:
    """`(5,)` uintp: what numba's unboxing of `rng` reads, in the order of `FIELDS`."""
    c = rng.bit_generator.ctypes

    def address(fn) -> int:
        return ctypes.cast(fn, ctypes.c_void_p).value or 0

    return np.array([c.state_address, c.state.value or 0, address(c.next_uint64), address(c.next_uint32),
                     address(c.next_double)], dtype=np.uintp)


class Handle:
    """The pointers of the last `Generator` seen (an env replaces its `Generator` when it is seeded)."""

    def __init__(self) -> None:
        self._rng: np.random.Generator | None = None
        self._pointers = np.zeros(len(FIELDS), dtype=np.uintp)

    def __getstate__(self) -> dict:
        # a copied or unpickled env has its own Generator: pointers into the original's must not travel
        return {}

    def __setstate__(self, state: dict) -> None:
        self.__init__()

    def of(self, rng: np.random.Generator) -> np.ndarray:
        if rng is not self._rng:
            self._pointers = pointers(rng)
            self._rng = rng  # held, so its state outlives every call that uses these pointers
        return self._pointers


@intrinsic
def generator(typingctx, ptrs):
    """Inside compiled code: the `Generator` whose `pointers` are `ptrs` (no Python object behind it: it
    must not be returned to Python)."""
    sig = types.NumPyRandomGeneratorType("rng")(ptrs)

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        bits = cgutils.create_struct_proxy(_BIT_GENERATOR)(context, builder)
        for k, name in enumerate(FIELDS):
            value = builder.load(cgutils.gep(builder, array.data, k))
            setattr(bits, name, value)
        gen = cgutils.create_struct_proxy(signature.return_type)(context, builder)
        gen.bit_generator = bits._getvalue()
        return gen._getvalue()  # meminfo and parent stay null: nothing to count or box

    return sig, codegen
