"""Sample frames of every level, for `make demo` and the README: what an agent sees and hears.

`save_level_samples(out_dir)` writes, per level, `<level>-rgb.png` (an agent's first-person view with
its HUD), `<level>-depth.png` (the same view's depth, near bright), `<level>-minimap.png` (the view
with the minimap open), `<level>-spectator.png` (the top-down view beside every agent's view) and
`<level>-audio.wav` (the agent's stereo sound over the steps played) and `<level>-sheet.png` (RGB,
depth, minimap view and the spectator's map side by side), after a few seconds of play by a fixed
sequence of actions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rtarena.media import write_png, write_wav

LEVELS = ("arena/basic-v0", "arena/coop-v0", "arena/competitive-v0", "arena/mixed-v0")


def _actions(env, step: int, minimap: bool) -> dict:
    # walk forward, sweep the view left and right, fire now and then
    yaw = 1 if (step // 6) % 2 == 0 else 2
    return {a: np.array([0, 2, yaw, 0, int(step % 4 == 0), 0, int(minimap)]) for a in env.agents}


def _grey(image: np.ndarray) -> np.ndarray:
    return np.repeat(image[..., None], 3, axis=2)


def _side_by_side(images: list[np.ndarray], gap: int = 4) -> np.ndarray:
    height = max(i.shape[0] for i in images)
    width = sum(i.shape[1] for i in images) + gap * (len(images) - 1)
    sheet = np.full((height, width, 3), 255, dtype=np.uint8)
    x = 0
    for image in images:
        sheet[:image.shape[0], x:x + image.shape[1]] = image
        x += image.shape[1] + gap
    return sheet


def save_level_samples(out_dir: str | Path = "demo-out/senses", resolution=(320, 240), steps: int = 12,
                       seed: int = 0, levels=LEVELS) -> list[Path]:
    """Play each level briefly and save its sample frames and sound under `out_dir`; returns the paths."""
    from rtarena.envs.arena.render.renderer import depth_image
    from rtarena.envs.registry import make

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for level in levels:
        name = level.split("/")[1].removesuffix("-v0")
        env = make(level, obs=("rgb", "depth", "audio"), resolution=resolution, render_mode="rgb_array")
        env.reset(seed=seed)
        sound = []
        for step in range(steps):
            obs, *_ = env.step(_actions(env, step, minimap=False))
            if not env.agents:
                break
            sound.append(obs[env.agents[0]]["audio"])
        agent = env.agents[0] if env.agents else env.possible_agents[0]
        last = obs.get(agent, {})
        if "rgb" in last:
            written.append(write_png(out / f"{name}-rgb.png", last["rgb"]))
            written.append(write_png(out / f"{name}-depth.png", depth_image(last["depth"])))
        written.append(write_png(out / f"{name}-spectator.png", env.render()))
        spectator = env.__dict__["_senses"].renderer.spectator(env.world, resolution[1], env.log.step,
                                                                  env.possible_agents)
        if env.agents:
            obs, *_ = env.step(_actions(env, steps, minimap=True))
            if agent in obs:
                written.append(write_png(out / f"{name}-minimap.png", obs[agent]["rgb"]))
                if "rgb" in last:
                    sheet = [last["rgb"], _grey(depth_image(last["depth"])), obs[agent]["rgb"], spectator]
                    written.append(write_png(out / f"{name}-sheet.png", _side_by_side(sheet)))
        if sound:
            rate = env.sense_options["sample_rate"]
            written.append(write_wav(out / f"{name}-audio.wav", np.concatenate(sound), rate))
        env.close()
    return written
