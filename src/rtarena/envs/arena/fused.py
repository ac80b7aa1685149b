"""The fused arena step: world, reward, termination, camera, sprites, HUD, minimap and pixels of one-player copies
in one compiled call (issue 33).

`ArenaEnv.step` runs the world in one compiled call, then a few dozen small Python pieces around the renderer's
compiled calls (events decoded to dicts, flags, the sprite, camera and HUD tables, the minimap); for a batch of
copies that Python was most of a frame. Here `step_batch` runs, for every copy in one call, exactly what the env
runs for its one player, composed from the same kernels (`sim.simulate`, `tables.fill_sprites`/`camera_rows`/
`hud_rows`, `maps._repaint`, `raycast.render_range`, `hud.overlay_range`), so the pixels, rewards and ends are
the env's own (`tests/arena/test_fused.py`). What stays in Python is what only episode ends need: the events
and the score of a finished episode, and the next episode's world.

A copy is two `Slot`s: the episode being played and the next one, already reset with its seed (layout made,
first frame drawn). When an episode ends the kernel keeps its final frame, switches the copy to the other slot
and writes that slot's first frame (autoreset in the same step); Python then reads the finished slot's events
and score and resets it for the episode after. Copies with different layouts share nothing but the rules: each
slot holds its own obstacle tables, so no padding is needed (a typed list of slots of one numba type).

Supported: one-player levels that declare `capabilities.fused_step` (their `level_over` is the coin level's:
every coin taken), pixel observations
(`rgb`); `ArenaVectorEnv` steps other levels and observations copy by copy.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba.typed import List

from rtarena.envs.arena import metrics
from rtarena.envs.arena.events import (
    AMMO_MOVED,
    CHICKEN_SHOT,
    COIN,
    DECODERS,
    HIT,
    SHOT,
    TURRET_FIRE,
    TURRET_HIT,
    TURRET_SHELL_HIT,
    EventLog,
    decode,
)
from rtarena.envs.arena.kernel_cache import kernel
from rtarena.envs.arena.random_state import pointers
from rtarena.envs.arena.render.draw import FONT
from rtarena.envs.arena.render.hud import H_MINIMAP, HUD_FIELDS, overlay_range
from rtarena.envs.arena.render.maps import _repaint, _seen_size
from rtarena.envs.arena.render.observations import Senses
from rtarena.envs.arena.render.raycast import render_range
from rtarena.envs.arena.render.scene import (
    CAMERA_FIELDS,
    FLASH,
    S_H,
    S_KIND,
    S_OWNER,
    S_P0,
    S_W,
    S_X,
    S_Y,
    S_Z,
    SPRITE_FIELDS,
)
from rtarena.envs.arena.render.sky import sky_words
from rtarena.envs.arena.render.tables import camera_rows, fill_sprites, hud_rows
from rtarena.envs.arena.sim import hold, simulate
from rtarena.envs.arena.world import Projectiles

CODES = AMMO_MOVED + 1  # event codes 0..AMMO_MOVED
NO_MINIMAP = np.zeros((0, 0, 3), dtype=np.uint8)


def supports(env: Any) -> bool:
    """Whether the fused step plays `env` exactly: one player, the coin level's end (declared:
    `capabilities.fused_step`), no actions inside steps (`capabilities.substep_s`)."""
    declared = env.capabilities
    return len(env.possible_agents) == 1 and declared.fused_step and declared.substep_s is None


def points_by_code(env: Any) -> np.ndarray:
    """The points each event code scores: the level's `points` for the event types `metrics.SCORED` names
    (the same table the env's step scores with), by the code the kernel writes (`events.DECODERS`)."""
    pts = env.rules.points
    table = np.zeros(CODES)
    for code, (kind, _) in enumerate(DECODERS):
        if kind in metrics.SCORED:
            table[code] = float(getattr(pts, metrics.SCORED[kind][1]))
    return table


def plan_table(env: Any) -> tuple[tuple[np.ndarray, ...], list[tuple]]:
    """Every step's sub-step plan from time 0 to the time limit (`Simulation._plan`, the same for every episode
    of a level): start times, zone radius squared, relocations `(J, S)`, the end time and zone radius `(J,)`;
    and the zone `(radius, next shrink, target radius)` after each step. Kept on the env's `Simulation`."""
    sim, world = env.sim, env.world
    key = (env.substeps, env.substep_s, world.time_limit_s)
    kept = sim.__dict__.get("_plan_table")
    if kept is not None and kept[0] == key:
        return kept[1]
    t, rows = 0.0, []
    while True:
        times, radius_sq, relocate, t_end, zone_now = sim._plan(t, env.substeps, env.substep_s)
        rows.append((times, radius_sq, relocate, t_end, zone_now))
        t = t_end
        if t >= world.time_limit_s - 1e-9:
            break
    table = ((np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows]), np.stack([r[2] for r in rows]),
              np.array([r[3] for r in rows]), np.array([r[4][0] for r in rows])), [r[4] for r in rows])
    sim._plan_table = (key, table)
    return table


class Slot:
    """One episode of one copy as the kernel reads it: the env (reset, so its first frame is drawn) and the
    buffers of its world step, gathered once per episode."""

    def __init__(self, env: Any, first_frame: np.ndarray) -> None:
        world, sim = env.world, env.sim
        self.env = env
        renderer = Senses.of(env).ensure_renderer()
        things = renderer._things_of(world)
        if renderer._things_world is not world:  # a converted array would not follow the world's updates
            raise RuntimeError("the fused step needs the world's own float64 and bool arrays")
        held = sim.held(world)  # the world step's buffers, made for this world (`Simulation._new_world`)
        n, t = len(world.players), len(world.turrets.alive)
        range_m, *_, speed, _ = sim.turrets.values
        h = env.substep_s
        # shells in flight: at most one per turret per sub-step, each living `1.5 range / speed` seconds
        cap = t * (math.ceil(1.5 * range_m / max(speed, 1e-9) / h) + env.substeps + 2) + 16
        self.shells = (np.zeros((cap, 3)), np.zeros((cap, 3)), np.zeros(cap, np.int64), np.zeros(cap, np.int64),
                       np.zeros(cap), np.array([0]))
        room = env.substeps * (sim._room_per_sub + 2 * cap) + 8
        self.events = (np.zeros((room, 5), np.int64), np.zeros(room), np.zeros(1, np.int64))
        self.taken = np.zeros(n)
        pixels = renderer._minimap[2]
        c, a = len(world.coins.active), len(world.ammo.active)
        minimap = (renderer.maps.static(pixels), np.empty((pixels, pixels, 3), np.uint8),
                   np.full(_seen_size(c, a, t), np.nan), pixels / float(world.size_m))
        p = world.players
        players = (p.pos, p.yaw, p.pitch, p.health, p.ammo, p.minimap_open, p.alive, float(p.eye_height_m),
                   float(p.max_health), float(p.ammo_max))
        self.held = hold((
            held, pointers(env.np_random), self.shells, self.events,
            (self.taken, np.zeros(n, dtype=bool), np.zeros((1, 7), np.int64)),
            sim.zone_args(world, h),
            (renderer.boxes, renderer.bounds, float(renderer.far_m), float(renderer.fog_m), float(renderer.fov)),
            things, players, minimap,
            (env.points, env.coins_taken, world.coins.active, float(world.time_limit_s), float(world.zone.center[0]),
             float(world.zone.center[1]), 1.0 if world.zone.enabled else 0.0),
            first_frame.copy(),
        ))

    def log_events(self, log: EventLog, times: np.ndarray, t_end: float) -> None:
        """The events of the slot's last step into `log`, as `ArenaEnv._step` emits them: the kernel's rows, then
        the zone damage."""
        ev, evx, evn = self.events
        if evn[0]:
            decode(log, ev[:evn[0]], evx[:evn[0]], times.tolist())
        log.time_s = t_end
        if self.taken.any():
            for i, damage in enumerate(self.taken.tolist()):
                if damage > 0:
                    log.emit("zone_damage", agent=log.names[i], damage=round(damage, 6))

    def last_events(self, times: np.ndarray, t_end: float) -> list[dict]:
        """The events of the slot's last step that involve its player, as `ArenaEnv.step` gives them in infos:
        built only for a finished episode (its final info)."""
        log = EventLog(self.env.possible_agents)
        self.log_events(log, times, t_end)
        return log.routed().get(self.env.possible_agents[0], [])


class Shared:
    """What every copy's step reads: the plan, the rules' numbers and the scratch tables of a batch of `n`."""

    def __init__(self, env: Any, n: int, hud: bool) -> None:
        senses = Senses.of(env)
        width, height = senses.width, senses.height
        renderer = senses.ensure_renderer()
        mm_x0, mm_y0, mm_size = renderer._minimap
        self.plan, self.zone_now = plan_table(env)
        self.numbers = (float(env.substep_s), env._motion, float(env.world.size_m), points_by_code(env), bool(hud),
                        int(mm_x0), int(mm_y0), int(mm_size))
        self.scratch = (np.zeros((n, CAMERA_FIELDS), np.float32), np.zeros((n, HUD_FIELDS)),
                        np.empty((1, height, width), np.float32), np.zeros(1, np.int64), np.zeros((1, 3)),
                        np.zeros(len(env.possible_agents)), np.zeros(4))
        self.art = (sky_words(), FONT, NO_MINIMAP)


class Batch:
    """`n` copies as `step_batch` takes them, in one `Held` (one unboxing a call): their slots (copy k plays
    `slots[2k + active[k]]`), the shared plan and numbers, and the output arrays, written in place."""

    def __init__(self, env: Any, slots: list[Slot], hud: bool) -> None:
        n = len(slots) // 2
        senses = Senses.of(env)
        self.shared = Shared(env, n, hud)
        self.slots, self.typed = slots, List([slot.held for slot in slots])
        self.active = np.zeros(n, dtype=np.int64)
        self.step_at = np.zeros(2 * n, dtype=np.int64)
        shape = (n, senses.height, senses.width, 3)
        self.obs, self.final_obs = np.zeros(shape, np.uint8), np.zeros(shape, np.uint8)
        self.rewards, self.terminated, self.truncated = np.zeros(n), np.zeros(n, bool), np.zeros(n, bool)
        self.held = hold((self.typed, self.active, self.step_at, self.shared.plan, self.shared.numbers,
                          self.shared.scratch, self.shared.art,
                          (self.obs, self.final_obs, self.rewards, self.terminated, self.truncated)))

    def replace(self, index: int, slot: Slot) -> None:
        """Slot `index` plays a new episode (the slot list is shared with the kernel: no new `Held`)."""
        self.slots[index] = slot
        self.typed[index] = slot.held

    def step(self, actions: np.ndarray) -> None:
        step_batch(self.held, actions)


class OneAgent:
    """`ArenaEnv._step` of a one-player pixel env in one compiled call: `step_batch` with one copy whose two
    slots are its episode (so nothing resets inside). The Python around it sets the world's clock, zone and shells
    and decodes events only in steps that have some. The env hands back to its own step at the episode's end (the
    world's arrays are the same: either step can follow the other)."""

    def __init__(self, env: Any, first_frame: np.ndarray) -> None:
        slot = Slot(env, first_frame)
        self.env, self.slot, self.agent = env, slot, env.possible_agents[0]
        self.batch = Batch(env, [slot, slot], bool(env.sense_options["hud"]))
        self.actions = np.zeros((1, 7), np.int64)
        self.j = 0

    def step(self, actions: dict[str, Any]) -> tuple:
        env, batch, slot, agent = self.env, self.batch, self.slot, self.agent
        world, log, j = env.world, env.log, self.j
        self.actions[0] = np.asarray(actions[agent], dtype=np.int64).reshape(-1)
        batch.step(self.actions)
        self.j = j + 1
        term, trunc = bool(batch.terminated[0]), bool(batch.truncated[0])
        frame = (batch.final_obs if term or trunc else batch.obs)[0].copy()
        plan = batch.shared.plan
        world.time_s = t_end = float(plan[3][j])
        world.zone.radius_m, world.zone.next_shrink_s, world.zone.target_radius_m = batch.shared.zone_now[j]
        shells = slot.shells
        c = int(shells[5][0])
        if c or len(world.projectiles.ttl_s):
            world.projectiles = Projectiles(*(buf[:c].copy() for buf in shells[:5]))
        log.start_step()
        slot.log_events(log, plan[0][j], t_end)
        env._routed = log.routed() if log.step else {}
        env._perception, env._views = None, {}
        if term or trunc:
            env._fused = None  # the episode is over: any further step is the env's own
        return ({agent: {"rgb": frame}}, {agent: float(batch.rewards[0])}, {agent: term}, {agent: trunc},
                {agent: {"events": list(env._routed.get(agent, ()))}})


@kernel
def flashes(table, ev, evn, pos, yaw, eye_height, tu_pos, tu_barrel):
    """`table` with the muzzle flashes of this step's shots and turret fire appended (`ArenaRenderer._flashes`,
    value for value: float64 arithmetic in the same order, then float32)."""
    count = 0
    for r in range(evn):
        if ev[r, 0] == SHOT or (ev[r, 0] == TURRET_FIRE and 0 <= ev[r, 2] < tu_pos.shape[0]):
            count += 1
    if count == 0:
        return table
    out = np.zeros((table.shape[0] + count, SPRITE_FIELDS), dtype=np.float32)
    out[:table.shape[0]] = table
    k = table.shape[0]
    made = 0
    for r in range(evn):
        code, a = ev[r, 0], ev[r, 2]
        if code == SHOT:
            y = yaw[a]
            fx, fy, rx, ry = math.cos(y), math.sin(y), math.sin(y), -math.cos(y)
            x = pos[a, 0] + 0.7 * fx + 0.22 * rx
            yy = pos[a, 1] + 0.7 * fy + 0.22 * ry
            z = pos[a, 2] + eye_height - 0.45
            size, p0, owner = 0.45, float(made), float(a)
        elif code == TURRET_FIRE and 0 <= a < tu_pos.shape[0]:
            b = tu_barrel[a]
            x = tu_pos[a, 0] + 0.9 * math.cos(b)
            yy = tu_pos[a, 1] + 0.9 * math.sin(b)
            z = tu_pos[a, 2] + 0.9
            size, p0, owner = 0.5, float(a), -1.0
        else:
            continue
        out[k, S_KIND] = FLASH
        out[k, S_X], out[k, S_Y], out[k, S_Z] = x, yy, z
        out[k, S_W] = out[k, S_H] = size
        out[k, S_P0] = p0
        out[k, S_OWNER] = owner
        k += 1
        made += 1
    return out


@kernel
def step_batch(batch, actions):
    """One step of every copy (`batch` is a `Batch`'s `held`): copy `k` plays `slots[2k + active[k]]` at its step
    `step_at[slot]` under `actions[k]`; its frame goes to `obs[k]`. A copy whose episode ends leaves its last frame
    in `final_obs[k]` and starts the other slot (its first frame in `obs[k]`)."""
    slots, active, step_at, plan, numbers, scratch, art, out = batch.values
    obs, final_obs, rewards, terminated, truncated = out
    times, radius_sq, relocate, t_ends, zone_radii = plan
    h, motion, size, scored, show, mm_x0, mm_y0, mm_size = numbers
    cams, hud, depth, me, marks, gained, zone_view = scratch
    sky, font, no_minimap = art
    for k in range(actions.shape[0]):
        s = 2 * k + active[k]
        j = step_at[s]
        (world, ptrs, shells, events, pads, zone, scene, things, players, minimap, score, _first) = slots[s].values
        ev, evx, evn = events
        taken, dry, acts = pads
        boxes, bounds, far_m, fog_m, fov = scene
        pos, yaw, pitch, health, ammo, minimap_open, alive, eye_height, max_health, ammo_max = players
        points, coins_taken, coins_active, time_limit, zx, zy, zone_on = score
        for a in range(acts.shape[1]):
            acts[0, a] = actions[k, a]
        taken[:] = 0.0
        dry[:] = False
        evn[0] = 0
        simulate(times[j], radius_sq[j], relocate[j], h, acts, world, motion, size, shells, zone, taken, dry, ptrs,
                  ev, evx, evn)
        t_end = t_ends[j]
        # the reward: the points of this step's scoring events (`ArenaEnv._score_events`)
        gained[:] = 0.0
        hit = hurt = fired = False
        for r in range(evn[0]):
            code, a, b = ev[r, 0], ev[r, 2], ev[r, 3]
            if scored[code] != 0.0:
                gained[a] += scored[code]
                if code == COIN:
                    coins_taken[a] += 1
            # the HUD's marks of player 0 (`Senses.flags`)
            if a == 0 and (code in (TURRET_HIT, CHICKEN_SHOT) or (code == HIT and b != 0)):
                hit = True
            if b == 0 and code in (HIT, TURRET_SHELL_HIT):
                hurt = True
            if code == SHOT and a == 0:
                fired = True
        if taken[0] > 0:
            hurt = True
        for i in range(points.shape[0]):
            points[i] += gained[i]
        rewards[k] = gained[0]
        over = not alive.any() or (coins_active.shape[0] > 0 and not coins_active.any())
        terminated[k] = over or not alive[0]
        truncated[k] = t_end >= time_limit - 1e-9 and not terminated[k]
        # the frame (`Senses.frames`): HUD row, sprites with the flashes, camera, minimap, pixels, HUD
        marks[0, 0], marks[0, 1], marks[0, 2] = hit, hurt, fired
        hud[k] = hud_rows(me, health, max_health, ammo, ammo_max, points, max(0.0, time_limit - t_end),
                          minimap_open, pos, yaw, alive, show, marks)[0]
        c = shells[5][0]
        (ppos, palive, pteam, pheight, colours, cpos, cactive, apos, aactive, chpos, chyaw, chalive, tpos, thealth,
         tmax, tbarrel, talive, ttarget) = things
        sprites = fill_sprites(ppos, palive, pteam, pheight, colours, cpos, cactive, apos, aactive, chpos, chyaw,
                               chalive, tpos, thealth, tmax, tbarrel, talive, ttarget, shells[0][:c].copy(), t_end)
        sprites = flashes(sprites, ev, evn[0], pos, yaw, eye_height, tpos, tbarrel)
        cams[k] = camera_rows(pos, yaw, pitch, eye_height, fov, me)[0]
        zone_view[0], zone_view[1], zone_view[2], zone_view[3] = zx, zy, zone_radii[j], zone_on
        picture = no_minimap
        if hud[k, H_MINIMAP] > 0.5:
            static, img, seen, scale = minimap
            _repaint(img, seen, static, scale, size, zone_on > 0.5, zx, zy, zone_radii[j], cpos, cactive, apos,
                     aactive, tpos, talive, thealth, tmax)
            picture = img
        render_range(boxes, bounds, cams, sprites, zone_view, sky, obs, depth, far_m, fog_m, k, k + 1)
        overlay_range(obs, hud, font, picture, mm_x0, mm_y0, mm_size / size, size, k, k + 1)
        if terminated[k] or truncated[k]:
            final_obs[k] = obs[k]
            active[k] = 1 - active[k]
            obs[k] = slots[2 * k + active[k]].values[11]
            step_at[2 * k + active[k]] = 0
        else:
            step_at[s] = j + 1
