"""The compiled perception (`perception.player_sight`, issue 19) answers exactly what the plain sight test
(`visibility.sight`) answers, also for things on the edge of the field of view or range."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rtarena.envs.arena.levels import CoopLevel
from rtarena.envs.arena.perception import (
    KINDS,
    NEAREST,
    bearing_and_rise,
    nearest_first,
    perceive,
    player_sight,
    relation,
)
from rtarena.envs.arena.visibility import sight
from rtarena.envs.arena.world import CRATE, WALL

HALF_FOV = math.radians(45.0)
RANGE = 60.0


def _reference(eyes, yaws, alive, head_z, points, ok, boxes, kinds):
    """The old perception: bodies and heads as separate points of `visibility.sight`, either one counts."""
    n = len(eyes)
    heads = points[:n].copy()
    heads[:, 2] = head_z
    both = np.vstack([points[:n], heads, points[n:]])
    both_ok = np.concatenate([ok[:n], ok[:n], ok[n:]])
    owner = np.full(len(both), -1, dtype=np.int64)
    owner[:n] = owner[n:2 * n] = np.arange(n)
    seen = sight(eyes, yaws, alive, both, both_ok, owner, HALF_FOV, RANGE, boxes, kinds)
    return np.hstack([seen[:, :n] | seen[:, n:2 * n], seen[:, 2 * n:]])


def _both(eyes, yaws, alive, head_z, points, ok, boxes, kinds):
    fast = player_sight(eyes, yaws, alive, head_z, points, ok, HALF_FOV, RANGE, boxes, kinds)
    return fast, _reference(eyes, yaws, alive, head_z, points, ok, boxes, kinds)


@pytest.fixture(scope="module")
def crowded():
    """A 96-player co-op level six random steps in (read, never stepped, by the tests that share it)."""
    env = CoopLevel(num_agents=96, obs=("state",))
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(6):
        env.step({a: rng.integers(0, [3, 3, 3, 3, 2, 2, 2]) for a in env.agents})
    return env


def test_a_crowded_level_is_seen_the_same(crowded):
    env = crowded
    w, p = env.world, env.world.players
    centres = p.pos.copy()
    centres[:, 2] += p.height_m * 0.5
    points = np.vstack([centres, w.coins.pos])
    ok = np.concatenate([p.alive, w.coins.active])
    fast, slow = _both(p.eye, p.yaw, p.alive, p.eye[:, 2].copy(), points, ok, w.obstacles.boxes, w.obstacles.kind)
    assert slow.sum() > 100  # the scene has plenty in sight
    assert np.array_equal(fast, slow)


def test_perceive_sees_lists_and_relates_every_kind_as_the_separate_passes_do(crowded):
    """`perceive` builds every kind's sight points, sight, top-10 and offsets in one compiled call (numpy's
    `arctan2` on the listed things only): each kind gets what `player_sight`, `nearest_first` and
    `bearing_and_rise` (checked against the full sorts below) give it alone, bit for bit."""
    env = crowded
    w, p = env.world, env.world.players
    seen = perceive(w, env.rules)
    feet = {"players": p.pos, "coins": w.coins.pos, "turrets": w.turrets.pos, "chickens": w.chickens.pos,
            "ammo": w.ammo.pos}
    lift = {"players": p.height_m * 0.5, "coins": 0.0, "turrets": w.turrets.barrel_height_m,
            "chickens": w.chickens.radius_m, "ammo": 0.3}
    points = np.vstack([feet[k] + [0, 0, lift[k]] for k in KINDS])
    ok = np.concatenate([p.alive, w.coins.active, w.turrets.alive, w.chickens.alive, w.ammo.active])
    sight_alone = player_sight(p.eye, p.yaw, p.alive, p.eye[:, 2].copy(), points, ok,
                               math.radians(float(env.rules.players.fov_deg)) / 2,
                               float(env.rules.players.view_range_m), w.obstacles.boxes, w.obstacles.kind)
    assert np.array_equal(np.hstack([getattr(seen, k) for k in KINDS]), sight_alone)
    listed = 0
    for kind in KINDS:
        order, count, dist = nearest_first(getattr(seen, kind), p.pos, feet[kind])
        bearing, rise = bearing_and_rise(p.pos, p.yaw, feet[kind], order)
        assert np.array_equal(seen.ordered[kind][0], order) and np.array_equal(seen.ordered[kind][1], count)
        assert all(got.tobytes() == want.tobytes() for got, want in zip(seen.relations[kind], (dist, bearing, rise),
                                                                       strict=True)), kind
        listed += int((order >= 0).sum())
    assert listed > 500 and sum(int((seen.ordered[k][0] >= 0).sum()) for k in KINDS[1:]) > 0


def test_points_on_the_edges_of_view_and_range_agree():
    rng = np.random.default_rng(0)
    yaws = rng.uniform(-7, 7, size=12)
    eyes = np.column_stack([rng.uniform(20, 80, 12), rng.uniform(20, 80, 12), np.full(12, 1.6)])
    pts = []
    for e, yaw in zip(eyes, yaws, strict=True):
        for off in (0.0, 1e-15, -1e-15, 1e-9, -1e-9, 1e-7, -1e-7):  # on, just in and just out of the edge
            for side in (1, -1):
                a = yaw + side * (HALF_FOV + off)
                for d in (5.0, RANGE, RANGE * (1 + 1e-15), RANGE * (1 - 1e-15)):
                    pts.append((e[0] + d * math.cos(a), e[1] + d * math.sin(a), 0.9))
        pts.append((e[0], e[1], 0.9))  # under the eye: no direction at all
    points = np.vstack([eyes * [1, 1, 0] + [0, 0, 0.9], np.array(pts)])
    ok = np.ones(len(points), dtype=bool)
    boxes = np.array([[45.0, 45.0, 55.0, 46.0, 3.0], [30.0, 60.0, 34.0, 61.0, 0.9]])
    kinds = np.array([WALL, CRATE])
    fast, slow = _both(eyes, yaws, np.ones(12, dtype=bool), eyes[:, 2].copy(), points, ok, boxes, kinds)
    assert 0 < slow.sum() < slow.size
    assert np.array_equal(fast, slow)


def _listed_reference(visible, origins, yaws, points):
    """The old listing: full relation matrices, a stable sort of every row, the first `NEAREST` kept."""
    dist, bearing, rise = relation(origins, yaws, points)
    order = np.argsort(np.where(visible, dist, np.inf), axis=1, kind="stable")[:, :NEAREST]
    return order, visible.sum(axis=1), dist, bearing, rise


def _assert_listed_like_reference(visible, origins, yaws, points):
    order, count, dist = nearest_first(visible, origins, points)
    bearing, rise = bearing_and_rise(origins, yaws, points, order)
    ref_order, ref_count, ref_dist, ref_bearing, ref_rise = _listed_reference(visible, origins, yaws, points)
    assert np.array_equal(count, ref_count)
    for i in range(len(visible)):
        m = min(count[i], NEAREST)
        cols = ref_order[i, :m]
        assert np.array_equal(order[i, :m], cols) and (order[i, m:] == -1).all()
        assert np.array_equal(dist[i, :m], ref_dist[i, cols])  # bit for bit, not approximately
        assert np.array_equal(bearing[i, :m], ref_bearing[i, cols])
        assert np.array_equal(rise[i, :m], ref_rise[i, cols])


def test_the_nearest_listed_things_and_their_relations_are_the_full_sorts():
    rng = np.random.default_rng(5)
    origins = np.column_stack([rng.uniform(0, 100, (40, 2)), rng.uniform(0, 2, 40)])
    yaws = rng.uniform(-4, 4, 40)
    points = np.column_stack([rng.uniform(0, 100, (300, 2)), rng.uniform(0, 2, 300)])
    visible = rng.random((40, 300)) < 0.3  # many rows list more than NEAREST
    assert (visible.sum(axis=1) > NEAREST).all()
    _assert_listed_like_reference(visible, origins, yaws, points)


def test_ties_keep_column_order():
    origins = np.zeros((1, 3))
    points = np.array([[3.0, 0, 0], [0, 1.0, 0], [-0.5, 0, 0], [-1.0, 0, 0], [0, 2.0, 0]] + [[0, 1.0, 0]] * 12)
    visible = np.ones((1, len(points)), dtype=bool)
    visible[0, 2] = False
    order, count, _ = nearest_first(visible, origins, points)
    assert count[0] == 16
    assert order[0].tolist() == [1, 3, *range(5, 13)]  # the twelve at 1 m in column order, after p1
    _assert_listed_like_reference(visible, origins, np.zeros(1), points)


def test_no_observation_lists_more_than_perception_keeps():
    from rtarena.envs.arena.observations.state import STATE_LAYOUT
    from rtarena.envs.arena.observations.text import MAX_LISTED

    seen_blocks = {"players", "coins", "turrets", "chickens", "ammo"}
    assert MAX_LISTED <= NEAREST
    assert all(slots <= NEAREST for name, slots, _ in STATE_LAYOUT if name in seen_blocks)
