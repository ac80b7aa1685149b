"""The compiled first-person renderer: a column raycaster against the obstacle boxes, billboard
sprites and a metric depth buffer.

One view is drawn in four passes:

0. **Floor.** The open floor is drawn first, row by row, wherever it lies nearer than `far_m`: a
   screen row sees the floor at one distance, so fog and grout contrast are per-row constants, world
   coordinates advance linearly along the row and the loop vectorises. The columns then draw over it.
1. **Columns.** The boxes are first culled to those in front of the camera, each with the screen
   columns it can cover. Each column's ray is then intersected with its few boxes (slab tests, exact
   edges, no grid), and walked from breakpoint to breakpoint: along the ray the height is that of the
   tallest box the ray is in (0 on the open floor). Where the height drops or rises a *run* ends: the
   run's top (floor, crate top) is drawn, and where the next run is taller its front face is drawn
   from the old height up to the new one. Everything is drawn front to back and only into rows still
   free, and since every obstacle is solid from the floor up, the free rows of a column are always the
   rows above some line: one integer per column is the whole occlusion state. A crate therefore hides
   the floor behind it but not a wall that rises above its top, and the walk stops as soon as nothing
   farther could show. Floor runs are already drawn (pass 0): they only move the occlusion line.
2. **Sprites.** Billboards are drawn with a per-pixel depth test against pass 1.
3. **Toxic zone.** The zone's boundary is a translucent purple cylinder: pixels behind it are tinted.

Depth is the distance along the view direction in the floor plane (the planar depth a depth camera
reports, in metres), the same value for every pixel of a flat billboard; the sky reads `far_m`.
Pitch shifts the horizon (y-shearing), so vertical lines stay vertical, as in classic raycasters.

Speed (issue 19): pass 1 is one compiled call per view, not calls per column, because every array a
compiled function receives costs two atomic reference-count updates and per-column calls taking a
dozen arrays each were a third of a frame; the per-pixel loops of wall faces and sky index with
unsigned integers, which compile without the code that wraps negative indices around. Pixels are
byte-identical to before (`tests/arena_senses/test_golden_frames.py`).
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from rtarena.envs.arena.render.scene import (
    C_FOV,
    C_PITCH,
    C_SELF,
    C_X,
    C_Y,
    C_YAW,
    C_Z,
    CHICKEN,
    FLASH,
    MAT_BOUNDARY,
    MAT_CRATE,
    S_B,
    S_G,
    S_H,
    S_KIND,
    S_OWNER,
    S_P0,
    S_P1,
    S_P2,
    S_R,
    S_W,
    S_X,
    S_Y,
    S_Z,
    SHELL,
    TURRET,
)
from rtarena.envs.arena.render.sky import SKY_MAX_TAN
from rtarena.envs.arena.render.sprites import sprite_pixel
from rtarena.envs.arena.render.surfaces import FOG_RGB, ZONE_RGB, fog, hash01, top_colour

MAX_PITCH_RAD = math.radians(75.0)
ZONE_WALL_M = 6.0  # drawn height of the zone's boundary
# array indices typed unsigned compile without the code that wraps negative indices around: a few
# instructions less per pixel in the hot loops (and unsigned plus signed would make a float)
ONE = np.uint64(1)
TWO = np.uint64(2)
THREE = np.uint64(3)


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def _put(rgb, depth, r, c, cr, cg, cb, d):
    rgb[r, c, 0] = np.uint8(min(255.0, max(0.0, cr)))
    rgb[r, c, 1] = np.uint8(min(255.0, max(0.0, cg)))
    rgb[r, c, 2] = np.uint8(min(255.0, max(0.0, cb)))
    depth[r, c] = d


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _fog_k(cr, cg, cb, s):
    return (cr * s + FOG_RGB[0] * (1.0 - s), cg * s + FOG_RGB[1] * (1.0 - s), cb * s + FOG_RGB[2] * (1.0 - s))


# inlined into the column walk: a compiled call per run passed `rgb` and `depth` (reference counts)
@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _draw_top(rgb, depth, c, yfree, h, mat, t0, t1, px, py, rdx, rdy, eye, hor, f, zx, zy, zr2, fog_m, row_t,
              row_s):
    """The horizontal top (height `h`) of a run of cells between ray distances t0 and t1."""
    if eye <= h + 1e-4:
        return yfree
    dz = eye - h
    ya = hor + f * dz / t1
    yb = hor + f * dz / t0 if t0 > 1e-6 else 1e9
    r0 = max(math.ceil(ya - 0.5), 0)
    r1 = min(math.ceil(min(yb, 1e8) - 0.5), yfree)
    if r1 <= r0:
        return yfree
    if h == 0.0:  # the floor is already there (`_floor_rows`)
        return r0
    for r in range(r0, r1):
        t = f * dz / (r + 0.5 - hor)
        fs = math.exp(-t / fog_m)
        wx = px + t * rdx
        wy = py + t * rdy
        cr, cg, cb = top_colour(mat, wx, wy, t, zx, zy, zr2)
        cr, cg, cb = _fog_k(cr, cg, cb, fs)
        _put(rgb, depth, r, c, cr, cg, cb, t)
    return r0


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _floor_tile(px, py, t, rdx, rdy, kg):
    """The floor's colour where a column's ray (`rdx`, `rdy`) meets it at distance t, before the zone's tint
    and fog, and that point (`wx`, `wy`): 2 m tiles, alternate ones darker, with grout lines darkened by
    `kg` (their contrast at this distance). Scalars only, so both of `_floor_rows`'s loops vectorise."""
    wx = px + t * rdx
    wy = py + t * rdy
    fx = wx * 0.5
    fy = wy * 0.5
    gx = math.floor(fx)
    gy = math.floor(fy)
    ix = np.int64(gx)
    iy = np.int64(gy)
    h = (ix * 374761393 + iy * 668265263 + 7 * 982451653) & 0xFFFFFFFF
    h = ((h ^ (h >> 13)) * 1274126177) & 0xFFFFFFFF
    v = 0.88 + 0.16 * (((h ^ (h >> 16)) & 0xFFFF) * (1.0 / 65536.0))
    v = v * 0.93 if (ix + iy) & 1 else v
    v = v * kg if (fx - gx < 0.035 or fy - gy < 0.035) else v
    return 150.0 * v, 142.0 * v, 122.0 * v, wx, wy


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def _floor_rows(flat, depth, r0, r1, row_t, row_s, px, py, ray_x, ray_y, zx, zy, zr2):
    """The floor in rows r0..r1 of every column, row by row, before the columns draw over it: 2 m tiles
    with grout lines fading with distance, purple outside the zone (the same picture as
    `surfaces.floor_colour`). A row lies at one distance, so its fog and grout contrast are constants
    and its pixels need no branches: the inner loop vectorises. `flat` is the RGB image as (H, W * 3). No
    clamp to 255 before the bytes: a tile is at most 150 * 1.04 (the zone's tint blends toward 150, 40,
    190) and the haze 212, and fog blends the two, so a clamp changed nothing and cost about a tenth of
    the floor's time."""
    W = depth.shape[1]
    for r in range(r0, r1):
        t = row_t[r]
        s = row_s[r]
        q = 1.0 - s
        fr = FOG_RGB[0] * q
        fg = FOG_RGB[1] * q
        fb = FOG_RGB[2] * q
        kg = 1.0 - 0.35 * max(0.0, 1.0 - t * (1.0 / 45.0))
        tf = np.float32(t)
        out = flat[r]
        dep = depth[r]
        zone_row = False
        if zr2 >= 0.0:  # the zone is convex: a row's stretch of floor with both ends inside is inside
            ax = px + t * ray_x[0] - zx
            ay = py + t * ray_y[0] - zy
            bx = px + t * ray_x[W - 1] - zx
            by = py + t * ray_y[W - 1] - zy
            zone_row = ax * ax + ay * ay > zr2 or bx * bx + by * by > zr2
        # two versions of the row's loop: most rows lie wholly inside the zone, and their loop has no
        # zone test (about a sixth of the floor's time)
        if zone_row:
            for c in range(W):
                cr, cg, cb, wx, wy = _floor_tile(px, py, t, ray_x[c], ray_y[c], kg)
                ddx = wx - zx
                ddy = wy - zy
                if ddx * ddx + ddy * ddy > zr2:
                    cr = cr * 0.55 + ZONE_RGB[0] * 0.45
                    cg = cg * 0.55 + ZONE_RGB[1] * 0.45
                    cb = cb * 0.55 + ZONE_RGB[2] * 0.45
                out[3 * c] = np.uint8(cr * s + fr)
                out[3 * c + 1] = np.uint8(cg * s + fg)
                out[3 * c + 2] = np.uint8(cb * s + fb)
                dep[c] = tf
        else:
            for c in range(W):
                cr, cg, cb, wx, wy = _floor_tile(px, py, t, ray_x[c], ray_y[c], kg)
                out[3 * c] = np.uint8(cr * s + fr)
                out[3 * c + 1] = np.uint8(cg * s + fg)
                out[3 * c + 2] = np.uint8(cb * s + fb)
                dep[c] = tf


@intrinsic
def _store_word(typingctx, array, index, value):
    """Store the uint32 `value` at byte `index` of the uint8 array `array` (1-d, C order), unaligned: its
    four bytes in memory order, one store instead of four."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        ptr = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(32).as_pointer())
        store = builder.store(args[2], ptr)
        store.align = 1
        return context.get_dummy_value()

    return types.void(array, index, types.uint32), codegen


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _store_rgb(out, o, word):
    """The colour bytes R, G, B of `word` at byte `o` of `out`, one by one: where a 4-byte store would
    write past the image's row or over a pixel that must stay."""
    out[o] = np.uint8(word & 0xFF)
    out[o + ONE] = np.uint8((word >> 8) & 0xFF)
    out[o + TWO] = np.uint8((word >> 16) & 0xFF)


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def _sky_rows(flat, depth, r1, sky_row, sky, ray_x, ray_y, f, far_m, col_free):
    """The sky in rows 0..r1 (above the horizon) of every column, row by row. The table's row is
    sqrt(tan(elevation) / max) * rows, and tan(elevation) = (hor - y) / (f * |ray|), so the square
    root splits into a row part (`sky_row`) and a column part. Drawn after the columns, only into the
    rows each column left free (`col_free`)."""
    W = depth.shape[1]
    E = sky.shape[0]
    A = sky.shape[1]
    table = sky.reshape(-1)
    base = np.empty(W, dtype=np.int32)  # each column's azimuth, as an offset into the table
    col_k = np.empty(W, dtype=np.float64)
    for c in range(W):
        rdx = ray_x[c]
        rdy = ray_y[c]
        base[c] = int((math.atan2(rdy, rdx) + math.pi) * (A / (2.0 * math.pi))) % A
        col_k[c] = E / math.sqrt(math.sqrt(rdx * rdx + rdy * rdy) * f * SKY_MAX_TAN)
    stride = A
    top = E - 1.0
    offset = np.empty(W, dtype=np.int32)  # one row's offsets into the table
    for r in range(r1):
        above = sky_row[r]
        out = flat[r]
        # the offsets first, in a loop of their own that vectorises (clamped before the conversion: the
        # same integers as min(int(x), E - 1) for x >= 0, in 32 bits, which vector code converts to)
        for c in range(W):
            offset[c] = base[c] + stride * np.int32(min(above * col_k[c], top))
        for c in range(W):  # along a row the elevation barely changes: neighbours in the table are near
            if r >= col_free[c]:
                continue
            rgbx = table[np.uint64(offset[c])]  # unsigned: no wraparound code
            o = np.uint64(3 * c)
            if c + 1 < W and r < col_free[c + 1]:  # the next pixel is sky too: one store, its red comes next
                _store_word(out, o, rgbx)
            else:
                _store_rgb(out, o, rgbx)


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _face_material(mat):
    """How a material's faces are laid: course height, block length, every other course's offset (in
    blocks), mortar line widths (fractions of a course, of a block), base colour, brightness `v0 + v1 *
    hash` and the hash's salt: planks (crates), bricks (the boundary) or blocks (walls)."""
    if mat == MAT_CRATE:
        return 0.25, 1.0, 0.0, 0.08, 0.04, 170.0, 118.0, 62.0, 0.85, 0.2, 3
    if mat == MAT_BOUNDARY:
        return 0.25, 0.5, 0.5, 0.1, 0.05, 150.0, 72.0, 58.0, 0.85, 0.25, 5
    return 0.5, 1.0, 0.5, 0.06, 0.03, 158.0, 162.0, 170.0, 0.86, 0.2, 11


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _course_words(mat, col, course, salt, v0, v1, shade, base_r, base_g, base_b, contrast, fs, fq):
    """One course's block and mortar colours at block column `col`, fogged (`fs` kept, `fq` haze), as
    words (bytes R, G, B, 0): light mortar on boundary bricks, dark joints elsewhere."""
    v = (v0 + v1 * hash01(col, course, salt)) * shade
    cr = base_r * v
    cg = base_g * v
    cb = base_b * v
    if mat == MAT_BOUNDARY:  # light mortar
        m = 0.3 * contrast
        lr = 185.0 * shade * m + cr * (1 - m)
        lg = 178.0 * shade * m + cg * (1 - m)
        lb = 165.0 * shade * m + cb * (1 - m)
    else:  # dark joints
        m = 1.0 - (0.45 if mat == MAT_CRATE else 0.4) * contrast
        lr = cr * m
        lg = cg * m
        lb = cb * m
    b0 = np.uint8(min(255.0, cr * fs + FOG_RGB[0] * fq))
    b1 = np.uint8(min(255.0, cg * fs + FOG_RGB[1] * fq))
    b2 = np.uint8(min(255.0, cb * fs + FOG_RGB[2] * fq))
    m0 = np.uint8(min(255.0, lr * fs + FOG_RGB[0] * fq))
    m1 = np.uint8(min(255.0, lg * fs + FOG_RGB[1] * fq))
    m2 = np.uint8(min(255.0, lb * fs + FOG_RGB[2] * fq))
    m_word = np.uint32(m0 | (np.uint32(m1) << 8) | (np.uint32(m2) << 16))
    return np.uint32(b0 | (np.uint32(b1) << 8) | (np.uint32(b2) << 16)), m_word


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _face_rows(flat, depth, course_words, c, r0, r1, t, k, eye, hor, inv_course, top, n, fz_line):
    """Rows r0..r1 of a face in column c: each row picks its course's block or mortar word (`course_words`,
    from course `top` down, `n` of them). A pixel is one 4-byte store whose fourth byte carries the next
    column's red as it was (the last column, whose fourth byte would lie outside the row, stores bytes)."""
    tf = np.float32(t)
    cu = np.uint64(c)
    W = depth.shape[1]
    row_bytes = np.uint64(3 * W)
    top_f = float(top)
    last_f = float(n - 1)
    for r in range(r0, r1):
        zz = (eye - (r + 0.5 - hor) * k) * inv_course
        course = np.floor(zz)  # a float: the same numbers without converting to an integer and back
        i = np.uint64(min(max(top_f - course, 0.0), last_f)) * TWO  # (the clamp only guards memory)
        word = course_words[i + (ONE if zz - course < fz_line else np.uint64(0))]
        ru = np.uint64(r)  # unsigned indices need no wraparound code
        o = ru * row_bytes + THREE * cu
        if c + 1 < W:  # one store: its fourth byte writes the next column's red back as it was
            _store_word(flat, o, np.uint32(word | (np.uint32(flat[o + THREE]) << 24)))
        else:
            _store_rgb(flat, o, word)
        depth[ru, cu] = tf


# inlined into the column walk: a compiled call per run passed `rgb` and `depth` (reference counts)
@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _draw_face(flat, depth, course_words, c, yfree, h_lo, h_hi, t, u, mat, side, eye, hor, f, fog_m):
    """A vertical face at ray distance t from height h_lo to h_hi: courses of blocks (walls, boundary
    bricks) or planks (crates) with mortar lines that fade with distance, darker on faces that look
    north or south (`side` 1) so corners read. Along a column only the course changes, so each course's
    colours are worked out once, before the rows (`_course_words`), and a row only picks its course's
    (`_face_rows`). `flat` is the RGB image as one row of bytes."""
    ya = hor + f * (eye - h_hi) / t
    yb = hor + f * (eye - h_lo) / t
    r0 = max(math.ceil(ya - 0.5), 0)
    r1 = min(math.ceil(yb - 0.5), yfree)
    if r1 <= r0:
        return yfree
    k = t / f
    fs = math.exp(-t / fog_m)
    fq = 1.0 - fs
    contrast = max(0.0, 1.0 - t / 50.0)
    shade = 0.78 if side == 1 else 1.0
    course_m, length_m, offset, fz_line, fu_line, base_r, base_g, base_b, v0, v1, salt = _face_material(mat)
    inv_course = 1.0 / course_m
    # a course's block column depends on the course only through its parity (every other course is offset):
    # both, once per face (the same expression as per course, so the same floats)
    bu_even = u / length_m + offset * 0
    bu_odd = u / length_m + offset * 1
    col_even = math.floor(bu_even)
    col_odd = math.floor(bu_odd)
    vertical_even = bu_even - col_even < fu_line
    vertical_odd = bu_odd - col_odd < fu_line
    # the face's courses, from the top row's down to the bottom row's (one more each way, in case a row's
    # zz rounds across), each course's block and mortar colours as words before the row loop: inside it a
    # new course was a branch mispredicted and then this whole chain
    top = math.floor((eye - (r0 + 0.5 - hor) * k) * inv_course) + 1
    n = min(top - math.floor((eye - (r1 - 1 + 0.5 - hor) * k) * inv_course) + 2, course_words.shape[0] // 2)
    for i in range(n):
        course = top - i
        odd = course & 1
        block, mortar = _course_words(mat, col_odd if odd else col_even, course, salt, v0, v1, shade, base_r,
                                      base_g, base_b, contrast, fs, fq)
        vertical = vertical_odd if odd else vertical_even  # a vertical joint: mortar all the course down
        course_words[2 * i] = mortar if vertical else block
        course_words[2 * i + 1] = mortar
    _face_rows(flat, depth, course_words, c, r0, r1, t, k, eye, hor, inv_course, top, n, fz_line)
    return r0


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _insert_sorted(keys, a, b, c, n, key):
    """One step of an insertion sort, for the few boxes a view or a ray meets: the place of `key` among
    the ascending `keys[:n]` (after equal ones), where the entries from there on, and those of the
    parallel arrays `a`, `b`, `c`, have moved one up to make room. The caller writes the new entry there."""
    q = n
    while q > 0 and keys[q - 1] > key:
        keys[q] = keys[q - 1]
        a[q] = a[q - 1]
        b[q] = b[q - 1]
        c[q] = c[q - 1]
        q -= 1
    return q


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def _cull_boxes(boxes, px, py, dx, dy, rx, ry, f, W, far_m, cand, col0, col1, near):
    """Keep the boxes in front of the camera with the screen columns each can cover and their nearest
    depth, sorted nearest first; returns how many."""
    n = 0
    for b in range(boxes.shape[0]):
        tmin = 1e30
        tmax = -1e30
        smin = 1e30
        smax = -1e30
        straddles = False
        for corner in range(4):
            x = boxes[b, 0] if corner & 1 == 0 else boxes[b, 2]
            y = boxes[b, 1] if corner < 2 else boxes[b, 3]
            vx = x - px
            vy = y - py
            t = vx * dx + vy * dy
            tmin = min(tmin, t)
            tmax = max(tmax, t)
            if t > 1e-3:
                sx = 0.5 * W + f * (vx * rx + vy * ry) / t
                smin = min(smin, sx)
                smax = max(smax, sx)
            else:
                straddles = True
        if tmax <= 0.0 or tmin >= far_m:
            continue
        if straddles:
            c0 = 0
            c1 = W - 1
        else:
            c0 = max(0, math.floor(smin) - 1)
            c1 = min(W - 1, math.floor(smax) + 1)
            if c0 > c1:
                continue
        # sorted by nearest depth: a column can stop at the first box beyond what blocks it
        q = _insert_sorted(near, cand, col0, col1, n, tmin)
        cand[q] = b
        col0[q] = c0
        col1[q] = c1
        near[q] = tmin
        n += 1
    return n


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def _column_candidates(n, col0, col1, W):
    """Each screen column's culled boxes (indices into the culled list, still nearest first): column c's
    are `col_cand[col_start[c]:col_start[c + 1]]`. A column then scans only the few boxes that can cover
    it (about 4 of 30 in a level's view) instead of testing every box's column range, a branch that
    mispredicted often (issue 19)."""
    col_start = np.zeros(W + 1, dtype=np.int64)
    for j in range(n):  # how many boxes cover each column, then where each column's list starts
        for c in range(col0[j], col1[j] + 1):
            col_start[c + 1] += 1
    for c in range(W):
        col_start[c + 1] += col_start[c]
    col_cand = np.empty(col_start[W], dtype=np.int64)
    fill = col_start[:W].copy()
    for j in range(n):  # in the culled order, so each column's list stays nearest first
        for c in range(col0[j], col1[j] + 1):
            col_cand[fill[c]] = j
            fill[c] += 1
    return col_start, col_cand


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def render_view(boxes, bounds, cam, sprites, zone, sky, rgb, depth, far_m, fog_m):
    """Draw one camera's view into `rgb` (H, W, 3) uint8 and `depth` (H, W) float32 metres.

    `boxes` is the obstacle table `(M, 6)`: x0, y0, x1, y1, height, material (`scene.box_table`);
    `bounds` = (lo, hi, outside height): beyond the square `[lo, hi]^2` everything counts as a wall;
    `cam` one camera row, `sprites` the sprite table, `zone` the array `(centre x, centre y, radius,
    enabled)` and `sky` the table of `sky.sky_words()` (elevation-major, one uint32 per colour).

    In order: the floor (row by row), pass 1 the columns (each ray walked through the boxes it crosses,
    `_draw_columns`), the sky, pass 2 the sprites (`_draw_sprites`), pass 3 the toxic zone's
    boundary (`_zone_wall`).
    """
    H = depth.shape[0]
    W = depth.shape[1]
    lo = bounds[0]
    hi = bounds[1]
    out_h = bounds[2]
    px = float(cam[C_X])
    py = float(cam[C_Y])
    eye = float(cam[C_Z])
    yaw = float(cam[C_YAW])
    pitch = min(max(float(cam[C_PITCH]), -MAX_PITCH_RAD), MAX_PITCH_RAD)
    tan_half = math.tan(0.5 * float(cam[C_FOV]))
    dx = math.cos(yaw)
    dy = math.sin(yaw)
    rx = dy  # the camera's right: forward x up
    ry = -dx
    f = 0.5 * W / tan_half
    hor = 0.5 * H + f * math.tan(pitch)
    zx = float(zone[0])
    zy = float(zone[1])
    zr2 = float(zone[2]) * float(zone[2]) if zone[3] > 0.5 else -1.0
    h_max = out_h
    for b in range(boxes.shape[0]):
        h_max = max(h_max, boxes[b, 4])
    row_t, row_s, sky_row = _row_tables(H, hor, f, eye, fog_m, far_m)
    ray_x, ray_y = _column_rays(W, dx, dy, rx, ry, tan_half)
    # the floor first, row by row (the columns then draw over it)
    r_sky = 0  # rows 0..r_sky lie above the horizon
    while r_sky < H and sky_row[r_sky] > 0.0:
        r_sky += 1
    if eye > 1e-4:  # the floor wherever it lies nearer than far_m
        r_floor = max(math.ceil(hor + f * eye / far_m - 0.5), 0)
        _floor_rows(rgb.reshape((H, W * 3)), depth, r_floor, H, row_t, row_s, px, py, ray_x, ray_y, zx, zy, zr2)
    M = boxes.shape[0]
    cand = np.empty(M, dtype=np.int64)
    col0 = np.empty(M, dtype=np.int64)
    col1 = np.empty(M, dtype=np.int64)
    near = np.empty(M, dtype=np.float64)
    n = _cull_boxes(boxes, px, py, dx, dy, rx, ry, f, W, far_m, cand, col0, col1, near)
    col_free = np.empty(W, dtype=np.int64)  # each column's rows still free after pass 1 (0..col_free)

    # the sky's depth first, as whole rows above the horizon (a vectorised fill): pass 1 draws over it
    # and the sky then has only colours to write (a store less per sky pixel)
    depth[:r_sky] = np.float32(far_m)

    # -- pass 1: columns ---------------------------------------------------------------------------
    _draw_columns(rgb, depth, boxes, n, cand, col0, col1, near, ray_x, ray_y, px, py, lo, hi, out_h, h_max, eye, hor,
                  f, zx, zy, zr2, fog_m, far_m, row_t, row_s, r_sky, col_free)

    _sky_rows(rgb.reshape((H, W * 3)), depth, r_sky, sky_row, sky, ray_x, ray_y, f, far_m, col_free)

    # -- pass 2: sprites ---------------------------------------------------------------------------
    _draw_sprites(rgb, depth, sprites, int(cam[C_SELF]), px, py, dx, dy, rx, ry, eye, hor, f, far_m, fog_m, H, W)

    # -- pass 3: the toxic zone's boundary -----------------------------------------------------------
    if zone[3] > 0.5:
        _zone_wall(rgb.reshape((H, W * 3)), depth, ray_x, ray_y, px - zone[0], py - zone[1], float(zone[2]), eye,
                   hor, f, far_m)


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _row_tables(H, hor, f, eye, fog_m, far_m):
    """Per screen row: the floor's distance (m) and fog factor (the same for every column), and the square
    root of the row's height above the horizon in pixels (-1 below it)."""
    row_t = np.empty(H, dtype=np.float64)
    row_s = np.empty(H, dtype=np.float64)
    for r in range(H):
        below = r + 0.5 - hor
        if below > 1e-9 and eye > 0.0:
            row_t[r] = f * eye / below
            row_s[r] = math.exp(-row_t[r] / fog_m)
        else:
            row_t[r] = far_m
            row_s[r] = 0.0
    sky_row = np.empty(H, dtype=np.float64)
    for r in range(H):
        above = hor - (r + 0.5)
        sky_row[r] = math.sqrt(above) if above > 0.0 else -1.0
    return row_t, row_s, sky_row


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _column_rays(W, dx, dy, rx, ry, tan_half):
    """Each column's ray (not unit length: planar depth)."""
    ray_x = np.empty(W, dtype=np.float64)
    ray_y = np.empty(W, dtype=np.float64)
    for c in range(W):
        k = ((2.0 * c + 1.0) / W - 1.0) * tan_half
        ray_x[c] = dx + rx * k
        ray_y[c] = dy + ry * k
    return ray_x, ray_y


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _slab(lo, hi, p, d, inv):
    """Entry and exit distance of a ray (origin `p`, direction `d`, `inv` = 1 / d) through the slab
    `lo <= x <= hi` of one axis, and whether it crosses it at all (a parallel ray outside does not)."""
    if abs(d) > 1e-12:
        ta = (lo - p) * inv
        tb = (hi - p) * inv
        return min(ta, tb), max(ta, tb), True
    if lo <= p <= hi:
        return -1e30, 1e30, True
    return 0.0, 0.0, False


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _ray_exit(px, py, rdx, rdy, inv_x, inv_y, lo, hi):
    """Where a column's ray leaves the world's square `[lo, hi]^2` (beyond: a wall of `out_h`) and through
    which side (0: an x face, 1: a y face)."""
    tx = (hi - px) * inv_x if rdx > 0 else (lo - px) * inv_x
    t_out = min(tx, (hi - py) * inv_y if rdy > 0 else (lo - py) * inv_y)
    return max(t_out, 1e-4), 0 if tx <= t_out else 1


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _ray_box(boxes, b, px, py, rdx, rdy, inv_x, inv_y):
    """Where a column's ray enters and leaves box `b`, through which side it enters (0: an x face, 1: a y
    face), and whether it crosses the box's two slabs at all."""
    txn, txf, crosses = _slab(boxes[b, 0], boxes[b, 2], px, rdx, inv_x)
    if not crosses:
        return 0.0, 0.0, 0, False
    tyn, tyf, crosses = _slab(boxes[b, 1], boxes[b, 3], py, rdy, inv_y)
    return max(txn, tyn), min(txf, tyf), 0 if txn >= tyn else 1, crosses


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _standing_in(boxes, hit_in, hit_box, nh):
    """The height and material of the tallest box the camera stands in (or on) at the ray's start: 0 and
    0 on the open floor."""
    cur_h = 0.0
    cur_m = 0
    for q in range(nh):
        if hit_in[q] <= 1e-9 and boxes[hit_box[q], 4] > cur_h:
            cur_h = boxes[hit_box[q], 4]
            cur_m = int(boxes[hit_box[q], 5])
    return cur_h, cur_m


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _next_break(t, t_out, hit_in, hit_out, nh):
    """The ray's next breakpoint after distance t: the nearest box entry or exit beyond it, else `t_out`."""
    tb = t_out
    for q in range(nh):
        if t + 1e-9 < hit_in[q] < tb:
            tb = hit_in[q]
        if t + 1e-9 < hit_out[q] < tb:
            tb = hit_out[q]
    return tb


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _tallest_after(tb, boxes, hit_in, hit_out, hit_box, hit_side, nh):
    """The tallest box the ray is in just after distance tb: its height (0: the open floor), material and
    entry side."""
    h2 = 0.0
    m2 = 0
    side2 = 0
    for q in range(nh):
        if hit_in[q] <= tb + 1e-9 and hit_out[q] > tb + 1e-9:
            hb = boxes[hit_box[q], 4]
            if hb > h2:
                h2 = hb
                m2 = int(boxes[hit_box[q], 5])
                side2 = hit_side[q]
    return h2, m2, side2


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _haze(rgb, depth, c, r0, r1, far_m):
    """Rows r0..r1 of column c, below the horizon where nothing was drawn: the haze, at `far_m`."""
    for r in range(r0, r1):
        rgb[r, c, 0] = np.uint8(FOG_RGB[0])
        rgb[r, c, 1] = np.uint8(FOG_RGB[1])
        rgb[r, c, 2] = np.uint8(FOG_RGB[2])
        depth[r, c] = far_m


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def _draw_columns(rgb, depth, boxes, n, cand, col0, col1, near, ray_x, ray_y, px, py, lo, hi, out_h, h_max, eye, hor,
                  f, zx, zy, zr2, fog_m, far_m, row_t, row_s, r_sky, col_free):
    """Pass 1, column by column: the culled boxes the column's ray passes through (`_ray_box`), sorted by
    entry distance (up to the first box as tall as the tallest), and where the ray leaves the world's
    square (`_ray_exit`); then the walk from breakpoint to breakpoint (`_next_break`; the height along the
    ray is the tallest box it is in, `_tallest_after`), drawing tops and faces bottom-up; then haze in the
    rows left free below the horizon (`_haze`). `col_free[c]` gets the first row (from the top) still free.

    One function for all columns, not a call per column: every array a compiled call receives costs
    two atomic reference-count updates, which were a third of the frame (issue 19). The helpers are
    inlined, and the two loops stay here: as inlined helpers that themselves inline `_draw_face`,
    `_draw_top` or `_insert_sorted`, they kept reference counts numba could not prune (twice as many
    in the compiled code, 10-20% slower frames)."""
    H = depth.shape[0]
    W = depth.shape[1]
    # the boxes one ray passes through: entry and exit distance, box, entry side
    hit_in = np.empty(n + 1, dtype=np.float64)
    hit_out = np.empty(n + 1, dtype=np.float64)
    hit_box = np.empty(n + 1, dtype=np.int64)
    hit_side = np.empty(n + 1, dtype=np.int64)
    col_start, col_cand = _column_candidates(n, col0, col1, W)
    flat = rgb.reshape(-1)  # the image as one row of bytes, for `_draw_face`'s 4-byte stores
    # `_draw_face`'s colours per course: two words for each course a face can show (courses are 0.25 m or more)
    course_words = np.empty(2 * (int(4.0 * max(h_max, out_h)) + 8), dtype=np.uint32)
    for c in range(W):
        rdx = ray_x[c]
        rdy = ray_y[c]
        inv_x = 1.0 / rdx if abs(rdx) > 1e-12 else 1e30
        inv_y = 1.0 / rdy if abs(rdy) > 1e-12 else 1e30
        t_out, out_side = _ray_exit(px, py, rdx, rdy, inv_x, inv_y, lo, hi)
        nh = 0
        t_cut = t_out
        for i in range(col_start[c], col_start[c + 1]):
            j = col_cand[i]
            if near[j] >= t_cut:  # the candidates are sorted nearest first
                break
            b = cand[j]
            t_in, t_ex, side, crosses = _ray_box(boxes, b, px, py, rdx, rdy, inv_x, inv_y)
            if not crosses or t_ex <= max(t_in, 0.0) or t_in > t_cut:
                continue
            if boxes[b, 4] >= h_max and eye <= h_max and t_in > 0.0:
                t_cut = t_in  # beyond the first box as tall as the tallest (taller than the eye) nothing shows
            q = _insert_sorted(hit_in, hit_out, hit_box, hit_side, nh, t_in)  # sorted by entry distance
            hit_in[q] = max(t_in, 0.0)
            hit_out[q] = t_ex
            hit_box[q] = b
            hit_side[q] = side
            nh += 1
        yfree = H
        t = 0.0
        cur_h, cur_m = _standing_in(boxes, hit_in, hit_box, nh)
        t_run = 0.0
        while True:
            tb = _next_break(t, t_out, hit_in, hit_out, nh)
            if tb >= far_m:
                yfree = _draw_top(rgb, depth, c, yfree, cur_h, cur_m, t_run, far_m, px, py, rdx, rdy, eye, hor, f,
                                  zx, zy, zr2, fog_m, row_t, row_s)
                break
            if tb >= t_out:
                yfree = _draw_top(rgb, depth, c, yfree, cur_h, cur_m, t_run, t_out, px, py, rdx, rdy, eye, hor, f,
                                  zx, zy, zr2, fog_m, row_t, row_s)
                if out_h > cur_h:
                    u = py + t_out * rdy if out_side == 0 else px + t_out * rdx
                    yfree = _draw_face(flat, depth, course_words, c, yfree, cur_h, out_h, t_out, u, MAT_BOUNDARY,
                                       out_side, eye, hor, f, fog_m)
                break
            h2, m2, side2 = _tallest_after(tb, boxes, hit_in, hit_out, hit_box, hit_side, nh)
            if h2 != cur_h:
                yfree = _draw_top(rgb, depth, c, yfree, cur_h, cur_m, t_run, tb, px, py, rdx, rdy, eye, hor, f,
                                  zx, zy, zr2, fog_m, row_t, row_s)
                if h2 > cur_h:
                    u = py + tb * rdy if side2 == 0 else px + tb * rdx
                    yfree = _draw_face(flat, depth, course_words, c, yfree, cur_h, h2, max(tb, 1e-4), u, m2, side2,
                                       eye, hor, f, fog_m)
                cur_h = h2
                cur_m = m2
                t_run = tb
                # nothing farther can reach a free row: stop walking
                limit = hor if eye >= h_max else hor + f * (eye - h_max) / tb
                if yfree - 0.5 < limit:
                    break
            t = tb
        # the rest of the column: sky above the horizon (drawn next, row by row), haze below it
        col_free[c] = yfree
        _haze(rgb, depth, c, r_sky, yfree, far_m)


@njit(cache=True, nogil=True, inline="always", fastmath=True, error_model="numpy")
def _draw_sprites(rgb, depth, sprites, own, px, py, dx, dy, rx, ry, eye, hor, f, far_m, fog_m, H, W):
    """Every sprite in front of the camera (but the viewer's own), pixel by pixel where nothing nearer was
    drawn; `sprites.sprite_pixel` says what each pixel shows."""
    for s in range(sprites.shape[0]):
        if own >= 0 and int(sprites[s, S_OWNER]) == own:
            continue
        vx = sprites[s, S_X] - px
        vy = sprites[s, S_Y] - py
        t = vx * dx + vy * dy
        if t < 0.15 or t >= far_m:
            continue
        lat = vx * rx + vy * ry
        w = float(sprites[s, S_W])
        h = float(sprites[s, S_H])
        z0 = float(sprites[s, S_Z])
        cx = 0.5 * W + f * lat / t
        half = 0.5 * f * w / t
        top = hor + f * (eye - z0 - h) / t
        bot = hor + f * (eye - z0) / t
        c0 = max(math.ceil(cx - half - 0.5), 0)
        c1 = min(math.ceil(cx + half - 0.5), W)
        r0 = max(math.ceil(top - 0.5), 0)
        r1 = min(math.ceil(bot - 0.5), H)
        if c0 >= c1 or r0 >= r1:
            continue
        kind = int(sprites[s, S_KIND])
        p0 = float(sprites[s, S_P0])
        p1 = float(sprites[s, S_P1])
        p2 = float(sprites[s, S_P2])
        view_lat = 0.0
        view_along = 0.0
        if kind == TURRET:
            bx = math.cos(p1)
            by = math.sin(p1)
            view_lat = 0.78 * (bx * rx + by * ry)
            view_along = bx * dx + by * dy
        elif kind == CHICKEN:
            view_lat = math.cos(p0) * rx + math.sin(p0) * ry
        cr0 = float(sprites[s, S_R])
        cg0 = float(sprites[s, S_G])
        cb0 = float(sprites[s, S_B])
        m_per_px = t / f
        for c in range(c0, c1):
            mu = (c + 0.5 - cx) * m_per_px
            for r in range(r0, r1):
                if depth[r, c] <= t:
                    continue
                mv = (bot - (r + 0.5)) * m_per_px
                hit, cr, cg, cb, glow = sprite_pixel(kind, mu, mv, w, h, cr0, cg0, cb0, p0, p1, p2,
                                                     view_lat, view_along)
                if hit:
                    if not glow:
                        cr, cg, cb = fog(cr, cg, cb, t, fog_m)
                    _put(rgb, depth, r, c, cr, cg, cb, t)


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def _zone_wall(flat, depth, ray_x, ray_y, ox, oy, R, eye, hor, f, far_m):
    """Tint what lies behind the zone's cylinder (centre at `-ox, -oy` from the camera, radius R): each
    column's ray meets it at most twice (near side first); the pixels of each crossing are blended row
    by row, so the inner loop vectorises."""
    H = depth.shape[0]
    W = depth.shape[1]
    cc = ox * ox + oy * oy - R * R
    wall_t = np.empty(W, dtype=np.float64)
    wall_a = np.empty(W, dtype=np.int64)
    wall_b = np.empty(W, dtype=np.int64)
    for root in range(2):
        lo = H
        hi = 0
        for c in range(W):
            rdx = ray_x[c]
            rdy = ray_y[c]
            a = rdx * rdx + rdy * rdy
            b = 2.0 * (ox * rdx + oy * rdy)
            disc = b * b - 4.0 * a * cc
            wall_t[c] = 1.0
            wall_a[c] = 0
            wall_b[c] = 0
            if disc <= 0.0:
                continue
            sq = math.sqrt(disc)
            t = (-b - sq) / (2.0 * a) if root == 0 else (-b + sq) / (2.0 * a)
            if t <= 0.05 or t >= far_m:
                continue
            ya = hor + f * (eye - ZONE_WALL_M) / t
            yb = hor + f * eye / t
            ra = max(math.ceil(ya - 0.5), 0)
            rb = min(math.ceil(yb - 0.5), H)
            wall_t[c] = t
            wall_a[c] = ra
            wall_b[c] = rb
            lo = min(lo, ra)
            hi = max(hi, rb)
        for r in range(lo, hi):
            out = flat[r]
            dep = depth[r]
            for c in range(W):
                t = wall_t[c]
                z = eye - (r + 0.5 - hor) * t / f
                alpha = 0.6 - 0.45 * z / ZONE_WALL_M
                alpha = 0.85 if z < 0.25 else alpha
                inside = (wall_a[c] <= r) & (r < wall_b[c]) & (dep[c] > t)
                alpha = alpha if inside else 0.0
                keep = 1.0 - alpha
                # a blend of a byte and the tint (alpha 0 outside, 0.15..0.85 on the wall): no clamp needed
                out[3 * c] = np.uint8(out[3 * c] * keep + ZONE_RGB[0] * alpha)
                out[3 * c + 1] = np.uint8(out[3 * c + 1] * keep + ZONE_RGB[1] * alpha)
                out[3 * c + 2] = np.uint8(out[3 * c + 2] * keep + ZONE_RGB[2] * alpha)


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def render_range(boxes, bounds, cams, sprites, zone, sky, rgb, depth, far_m, fog_m, start, stop):
    """Render cameras `start..stop` into `rgb[i]`/`depth[i]`; one call per worker thread. A `depth` of
    one image is a scratch buffer that every camera reuses (nobody asked for depth)."""
    scratch = depth.shape[0] == 1
    for i in range(start, stop):
        render_view(boxes, bounds, cams[i], sprites, zone, sky, rgb[i], depth[0] if scratch else depth[i],
                    far_m, fog_m)


__all__ = ["FLASH", "SHELL", "render_range", "render_view"]
