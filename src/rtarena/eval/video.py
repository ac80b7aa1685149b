"""MP4 videos of episodes with the clock stamped on every frame, so a viewer sees what an agent missed
while it was thinking.

Recording is composition, not a flag threaded through the runtime: `VideoRecorder.wrap` puts a thin
wrapper around the env (it grabs `env.render()` in `rgb_array` mode after reset and after every step) and
around each controller's agent (it notes when a decision starts and ends, its tokens, and the simulated
time at which the clock will let it act). Each frame gets a panel below it:

    sim 12.40 s   wall 3.18 s   step 620
    agent_0  thinking 0.84 s (started at sim 11.50 s)
    agent_1  last: 310 ms, 412 tok out, acts at sim 12.75 s

Frames are streamed to ffmpeg (imageio-ffmpeg, the `video` extra) as they come; text is drawn with
pygame-ce's font module. The finished MP4 is returned as bytes so that a worker on another machine can
send it back to the run's folder.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from rtarena.contract import Agent, AgentContext, Decision, as_agent
from rtarena.envs.base import RealtimeWrapper
from rtarena.errors import UserError

PANEL_BG = (16, 18, 24)
TEXT = (235, 235, 235)
THINKING = (255, 196, 64)
MAX_LINES = 8
SMALL_WIDTH = 560


def _need(module: str, extra: str = "video"):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise UserError(f"videos need {module.split('.')[0]} (pip install 'rtarena[{extra}]')",
                        field="--video") from None


class DecisionLog:
    """What every controller is doing, shared by the agent wrappers and the frame grabber."""

    def __init__(self, clock: Any) -> None:
        self.clock = clock
        self.lock = threading.Lock()
        self.sim_s = 0.0
        self.thinking: dict[str, tuple[float, float]] = {}  # name -> (wall start, sim start)
        self.last: dict[str, dict[str, float]] = {}
        self.names: list[str] = []

    def start(self, name: str) -> None:
        with self.lock:
            if name not in self.names:
                self.names.append(name)
            self.thinking[name] = (time.perf_counter(), self.sim_s)

    def finish(self, name: str, decision: Decision) -> None:
        with self.lock:
            wall_start, sim_start = self.thinking.pop(name, (time.perf_counter(), self.sim_s))
            latency = time.perf_counter() - wall_start
            try:
                delay = self.clock.decision_delay_s(decision, latency)
            except Exception:  # a malformed decision is the runtime's to count, not the video's
                delay = latency
            self.last[name] = {"latency_s": latency, "tokens_out": int(getattr(decision, "tokens_out", 0) or 0),
                               "tokens_in": int(getattr(decision, "tokens_in", 0) or 0),
                               "acts_at_sim_s": sim_start + delay}

    def lines(self) -> list[tuple[str, tuple[int, int, int]]]:
        now = time.perf_counter()
        out = []
        with self.lock:
            for name in self.names[:MAX_LINES - 1]:
                if name in self.thinking:
                    wall_start, sim_start = self.thinking[name]
                    out.append((f"{name}  thinking {now - wall_start:.2f} s (started at sim {sim_start:.2f} s)",
                                THINKING))
                elif name in self.last:
                    last = self.last[name]
                    waiting = last["acts_at_sim_s"] > self.sim_s + 1e-9
                    when = f"acts at sim {last['acts_at_sim_s']:.2f} s" if waiting else "applied"
                    out.append((f"{name}  last: {last['latency_s'] * 1000:.0f} ms, {last['tokens_in']} tok in, "
                                f"{last['tokens_out']} tok out, {when}", THINKING if waiting else TEXT))
        return out


class TimedAgent(Agent):
    """An agent that reports its decisions to a `DecisionLog`; everything else is the wrapped agent's."""

    def __init__(self, inner: Agent, label: str, log: DecisionLog) -> None:
        self.inner, self.label, self.log = as_agent(inner), label, log
        self.name = self.inner.name or label
        self.privileged = self.inner.privileged  # a privileged agent stays privileged when filmed

    def reset(self, context: AgentContext) -> None:
        self.inner.reset(context)

    def act(self, observation: Any) -> Decision:
        self.log.start(self.label)
        decision = self.inner.act(observation)
        self.log.finish(self.label, decision if isinstance(decision, Decision) else Decision(action=decision))
        return decision

    def applied(self, number: int) -> None:
        self.inner.applied(number)

    def close(self) -> None:
        self.inner.close()


class RecordingEnv(RealtimeWrapper):
    """The env (its contract forwarded) that grabs a stamped frame after reset and after every step."""

    def __init__(self, env: Any, recorder: VideoRecorder) -> None:
        super().__init__(env)
        self._recorder = recorder

    def reset(self, seed: int | None = None, options: dict | None = None):
        out = self.env.reset(seed=seed, options=options)
        self._recorder.step_index = 0
        self._recorder.grab()
        return out

    def step(self, actions: Any):
        out = self.env.step(actions)
        self._recorder.step_index += 1
        self._recorder.grab()
        return out


class VideoRecorder:
    """Records one episode to an MP4 in a temporary folder; `finish()` returns its bytes."""

    def __init__(self, env: Any, clock: Any, fps: float | None = None) -> None:
        self.ffmpeg = _need("imageio_ffmpeg")
        self.pygame = _need("pygame")
        self.pygame.font.init()
        self.font = self.pygame.font.Font(None, 18)
        self.env = env
        self.dt = float(env.dt)
        self.fps = fps or min(60.0, 1.0 / self.dt)
        self.log = DecisionLog(clock)
        self.step_index = 0
        self.wall_origin = time.perf_counter()
        self.folder = tempfile.mkdtemp(prefix="rtarena-video-")
        self.path = Path(self.folder) / "episode.mp4"
        self.writer = None
        self.size: tuple[int, int] | None = None
        self.frames = 0
        self.panel_lines = MAX_LINES

    def wrap(self, env: Any, controllers: dict[Any, Agent]) -> tuple[Any, dict[Any, Agent]]:
        wrapped = {}
        self.panel_lines = min(MAX_LINES, 1 + len(controllers))
        for key, agent in controllers.items():
            label = key if isinstance(key, str) else "team(" + ",".join(key) + ")"
            wrapped[key] = TimedAgent(agent, label, self.log)
        return RecordingEnv(env, self), wrapped

    def grab(self) -> None:
        self.log.sim_s = round(self.step_index * self.dt, 9)
        frame = self.env.render()
        if frame is None:
            raise UserError(f"env {self.env.spec_id or '?'} rendered nothing in rgb_array mode",
                            field="--video")
        frame = np.asarray(frame, dtype=np.uint8)[..., :3]
        if frame.shape[1] < SMALL_WIDTH:  # small renders (the arena's 128 px views) get 2x, nearest neighbour
            frame = frame.repeat(2, axis=0).repeat(2, axis=1)
        self.write(self.stamp(frame))

    def stamp(self, frame: np.ndarray) -> np.ndarray:
        lines = [(f"sim {self.log.sim_s:.2f} s   wall {time.perf_counter() - self.wall_origin:.2f} s   "
                  f"step {self.step_index}", TEXT), *self.log.lines()]
        width = frame.shape[1]
        line_h = self.font.get_linesize() + 2
        panel = self.pygame.Surface((width, line_h * self.panel_lines + 6))
        panel.fill(PANEL_BG)
        for i, (text, colour) in enumerate(lines[:self.panel_lines]):
            panel.blit(self.font.render(text, True, colour), (6, 4 + i * line_h))
        pixels = np.transpose(self.pygame.surfarray.array3d(panel), (1, 0, 2))
        out = np.concatenate([frame, pixels], axis=0)
        pad_h, pad_w = (-out.shape[0]) % 2, (-out.shape[1]) % 2  # yuv420p needs even sizes
        if pad_h or pad_w:
            out = np.pad(out, ((0, pad_h), (0, pad_w), (0, 0)))
        return np.ascontiguousarray(out)

    def write(self, frame: np.ndarray) -> None:
        size = (frame.shape[1], frame.shape[0])
        if self.writer is None:
            self.size = size
            self.writer = self.ffmpeg.write_frames(str(self.path), size, fps=self.fps, codec="libx264",
                                                   macro_block_size=2, ffmpeg_log_level="error")
            self.writer.send(None)
        if size != self.size:  # a renderer that changes size mid-episode: keep the first size
            fixed = np.zeros((self.size[1], self.size[0], 3), dtype=np.uint8)
            h, w = min(self.size[1], size[1]), min(self.size[0], size[0])
            fixed[:h, :w] = frame[:h, :w]
            frame = fixed
        self.writer.send(frame)
        self.frames += 1

    def finish(self) -> bytes | None:
        """Close the stream and return the MP4's bytes (None if no frame was written)."""
        try:
            if self.writer is None:
                return None
            self.writer.close()
            return self.path.read_bytes()
        finally:
            if self.path.exists():
                os.unlink(self.path)
            os.rmdir(self.folder)
