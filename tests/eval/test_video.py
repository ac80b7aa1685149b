"""Videos: one MP4 per episode, a frame per env step, the clock and each decision stamped on the frames."""

from __future__ import annotations

import imageio_ffmpeg
import numpy as np

from rtarena.eval.episodes import EpisodeJob
from rtarena.eval.runner import run_jobs
from rtarena.runtime.clocks import make_clock

from .helpers import lines


def read_video(path):
    reader = imageio_ffmpeg.read_frames(str(path))
    meta = next(reader)
    width, height = meta["size"]
    frames = [np.frombuffer(f, dtype=np.uint8).reshape(height, width, 3) for f in reader]
    return meta, frames


def test_mp4_per_episode_with_stamped_panel(tmp_path):
    jobs = [EpisodeJob("classic/cartpole-v0", ("heuristic",), make_clock("token", kappa=1000.0, overhead_s=0.01), seed,
                       40, video=seed == 0) for seed in range(2)]
    run_dir = tmp_path / "run"
    run_jobs(jobs, run_dir, "run", {"name": "v"}, workers=2)
    episodes = {e["seed"]: e for e in lines(run_dir)}
    assert episodes[0]["video"] == "videos/classic__cartpole-v0__seed00000.mp4"
    assert "video" not in episodes[1] and not (run_dir / "videos" / f"{jobs[1].key}.mp4").exists()
    meta, frames = read_video(run_dir / episodes[0]["video"])
    assert meta["fps"] == 50.0  # played at simulated speed: dt = 0.02 s
    assert episodes[0]["steps"] == 40 and len(frames) == 41  # the reset frame and one per step
    height, width = frames[0].shape[:2]
    assert width == 600 and height > 400 and height % 2 == 0  # cart-pole's 600x400 view plus the panel
    scene, panel = frames[10][:400], frames[10][400:]
    assert panel.mean() < 80 and panel.max() > 200  # a dark panel with bright text on it
    assert scene.mean() > 200  # gymnasium's white cart-pole scene
    # the stamp changes with time: sim time and the decision line differ between frames
    assert np.abs(frames[5][400:].astype(int) - frames[30][400:].astype(int)).sum() > 0
    assert np.abs(frames[5][:400].astype(int) - frames[30][:400].astype(int)).sum() > 0


def test_report_links_the_videos(tmp_path):
    from rtarena.eval.report import build_report

    jobs = [EpisodeJob("classic/cartpole-v0", ("noop",), "paused", 0, 20, video=True)]
    run_dir = tmp_path / "runs" / "v"
    run_jobs(jobs, run_dir, "v", {"name": "v"}, workers=1)
    html = build_report(["v"], out=tmp_path / "report", root=tmp_path / "runs")
    link = "../runs/v/videos/classic__cartpole-v0__seed00000.mp4"
    assert f'href="{link}"' in html.read_text() and (html.parent / link).resolve().is_file()
    assert f"]({link})" in html.with_suffix(".md").read_text()


def test_arena_video_shows_the_spectator_view_and_every_controller(tmp_path):
    jobs = [EpisodeJob("arena/coop-v0", ("heuristic",), "paused", 0, 8, env_kwargs={"dt": 0.25}, video=True)]
    run_dir = tmp_path / "run"
    run_jobs(jobs, run_dir, "run", {"name": "v"}, workers=1)
    (episode,) = lines(run_dir)
    meta, frames = read_video(run_dir / episode["video"])
    assert meta["fps"] == 4.0 and len(frames) == 9
    import rtarena

    env = rtarena.make("arena/coop-v0", render_mode="rgb_array")
    env.reset(seed=0)
    view = env.render()
    env.close()
    scale = 2 if view.shape[1] < 560 else 1
    height, width = frames[0].shape[:2]
    assert width == view.shape[1] * scale and height > view.shape[0] * scale
    panel = frames[4][view.shape[0] * scale:]
    # one line for the clock and one per controller (p0..p3): five bands of text in the panel
    rows_with_text = np.flatnonzero(panel.max(axis=(1, 2)) > 200)
    bands = 1 + int(np.sum(np.diff(rows_with_text) > 3))
    assert bands == 5
