"""The compiled world step (issue 19) computes what the Python rules computed, bit for bit: the parts whose
compiled form could differ silently from Python's float arithmetic or random stream are checked here
(the golden records check whole matches)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rtarena.envs.arena.events import DECODERS, EventLog, decode, put
from rtarena.envs.arena.pickups import random_free_point
from rtarena.envs.arena.pymath import py_hypot
from rtarena.envs.arena.random_state import Handle, generator


@njit
def _hypots(xy):
    out = np.empty(xy.shape[0])
    for k in range(xy.shape[0]):
        out[k] = py_hypot(xy[k, 0], xy[k, 1])
    return out


def test_compiled_hypot_is_cpythons_to_the_last_bit():
    rng = np.random.default_rng(0)
    xy = rng.normal(size=(50_000, 2)) * rng.uniform(0.0, 60.0, size=(50_000, 1))  # shell aims: metres
    xy[:5] = [[3.0, 4.0], [0.0, 0.0], [0.0, -2.5], [-1e-3, 7.0], [1e6, 1e-6]]
    got = _hypots(xy)
    want = np.array([math.hypot(x, y) for x, y in xy])
    assert np.array_equal(got, want)
    # the C library's hypot (what numba's math.hypot calls) differs on this sample, so the port is needed
    assert not np.array_equal(np.hypot(xy[:, 0], xy[:, 1]), want)


def test_random_free_point_draws_as_numpy_uniform_does():
    """Same generator state in, same point and same state out as `rng.uniform(lo, hi, size=(32, 2))`."""
    boxes = np.array([[0.0, 0.0, 30.0, 29.0, 3.0]])  # almost all of a 40 m floor blocked
    players = np.array([[35.0, 35.0, 0.0]])
    areas = np.array([[2.0, 2.0, 38.0, 38.0]])
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    got = random_free_point(players, np.array([True]), boxes, 40.0, a, areas, 0)
    while True:  # the rule, as numpy would run it
        points = b.uniform(np.array([2.0, 2.0]), np.array([38.0, 38.0]), size=(32, 2))
        dx = np.maximum(np.maximum(0.0 - points[:, 0], points[:, 0] - 30.0), 0)
        dy = np.maximum(np.maximum(0.0 - points[:, 1], points[:, 1] - 29.0), 0)
        ok = (dx * dx + dy * dy >= 1.0) & (np.hypot(points[:, 0] - 35.0, points[:, 1] - 35.0) >= 2.0)
        if ok.any():
            break
    assert np.array_equal(got, points[np.argmax(ok)])
    assert a.random() == b.random()


def test_every_event_code_decodes_to_its_record():
    @njit
    def raise_all(ev, evx, evn, codes):
        for code in codes:
            put(ev, evx, evn, code, 1, 0, 1 if code != 3 else 0, 1, 2.5)

    ev, evx, evn = np.zeros((len(DECODERS), 5), np.int64), np.zeros(len(DECODERS)), np.zeros(1, np.int64)
    raise_all(ev, evx, evn, np.arange(len(DECODERS)))
    log = EventLog(["p0", "p1"])
    decode(log, ev[:evn[0]], evx[:evn[0]], [0.0, 0.25])
    assert [e["type"] for e in log.all] == [kind for kind, _ in DECODERS]
    assert all(e["t_s"] == 0.25 for e in log.all)
    death = log.all[3]
    assert death == {"type": "death", "t_s": 0.25, "agent": "p0", "cause": "player", "by": "p1"}
    assert log.all[2]["damage"] == 2.5 and log.all[-1]["moved"] is True


@njit
def _draws(ptrs, n):
    rng = generator(ptrs)
    out = np.empty(2 * n)
    for k in range(n):
        out[2 * k] = rng.random()
        out[2 * k + 1] = rng.normal(0.0, 2.0)
    return out


def test_generator_from_pointers_draws_from_the_python_generators_state():
    """The kernel's Generator (`random_state.generator`) is the env's: same numbers, and the state it leaves
    is the Python object's, so Python and compiled draws interleave as one stream."""
    ours, ref = np.random.default_rng(7), np.random.default_rng(7)
    handle = Handle()
    got = np.concatenate([_draws(handle.of(ours), 50), ours.random(3), _draws(handle.of(ours), 50)])

    def pairs():
        return [x for _ in range(50) for x in (ref.random(), ref.normal(0.0, 2.0))]

    want = [*pairs(), *ref.random(3), *pairs()]
    assert np.array_equal(got, np.array(want))
    assert ours.bit_generator.state == ref.bit_generator.state


def test_a_copied_env_draws_from_its_own_generator():
    """A deep copy or a pickle of an env must not keep pointers into the original's Generator."""
    import copy
    import pickle

    import rtarena

    def run(env):
        steps = [env.step({a: np.array([k % 3, 1, 2, 0, 1, 0, k % 2]) for a in env.agents})[1:]
                 for k in range(40)]
        return repr(steps), env.np_random.bit_generator.state

    env = rtarena.make("arena/coop-v0", num_agents=2)
    env.reset(seed=4)
    run(env)
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    first = run(env)
    assert all(run(c) == first for c in copies)
