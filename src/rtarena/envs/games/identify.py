"""The contamination probe: three frames of a suite game, and one question, "which game is this?"."""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from rtarena.envs.base import AgentID, RealtimeParallelEnv
from rtarena.errors import UserError

QUESTION = ("These are three frames, left to right in time, from a video game. Name the game if you know "
            "it (or say you do not), then describe its mechanics in two or three sentences: what the player "
            "controls, the goal, and what makes it hard. Answer on one line after `ACTION:`.")
FRAME_STEPS = (10, 40, 80)  # the frames are taken after these many steps of seeded random play


class IdentifyProbe(RealtimeParallelEnv):
    """Three frames of one suite game and a question: can a model name the game and its mechanics?

    ## Description
    A one-question episode for the contamination check (docs/games.md). At reset the probe plays the
    game named by `game` (any suite env id) with seeded random keys, takes player p0's view after
    10, 40 and 80 steps, and shows the three frames side by side with a question: name the game and
    describe its mechanics. The answer is recorded with the run (the decision's raw text, and an
    `answer` event); with `frames_dir` (set by the runner) the frames are saved as PNGs beside it.

    ## Observation
    `rgb`: the three frames side by side (size x 3 size). `text`: the question.

    ## Action Space
    `Text`: the answer (one line).

    ## Rewards and Score
    No reward. Metrics: `answer_chars`; `names_the_game` is 1 when the answer contains the suite
    game's own title (which no model should know; a model that names a commercial game instead is
    what a reader looks for in the stored answers).

    ## Termination
    After the one answer.

    ## Registered Configurations
    - `probe/identify-v0` (`game="games/duel-v0"` by default; the `suite-identify` preset asks about all
      twelve)
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": [], "name": "identify_probe", "is_parallelizable": True}

    def __init__(self, game: str = "games/duel-v0", size: int = 96, frames_dir: str | None = None) -> None:
        super().__init__()
        if not game.startswith("games/"):
            raise UserError(f"game must be a suite env id (games/...), got {game!r}", field="game")
        self.game, self.size, self.frames_dir = game, int(size), frames_dir
        self.dt = 1.0
        self.possible_agents = ["p0"]
        self._obs_space = spaces.Dict({
            "rgb": spaces.Box(0, 255, (self.size, 3 * self.size, 3), np.uint8),
            "text": spaces.Text(max_length=2000, min_length=0, charset=string.printable),
        })
        self._act_space = spaces.Text(max_length=2000, min_length=0, charset=string.printable)

    def observation_space(self, agent: AgentID) -> spaces.Dict:
        return self._obs_space

    def action_space(self, agent: AgentID) -> spaces.Text:
        return self._act_space

    def _frames(self) -> list[np.ndarray]:
        from rtarena.envs.registry import make

        env = make(self.game, obs=("rgb",), size=self.size)
        seed = int(self.np_random.integers(1 << 30))
        observations, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        frames, step = [], 0
        while len(frames) < len(FRAME_STEPS):
            if step in FRAME_STEPS or not env.agents:
                frames.append(observations.get("p0", {}).get("rgb", frames[-1] if frames else
                                                             np.zeros((self.size, self.size, 3), np.uint8)))
                if not env.agents:
                    continue
            actions = {a: env.action_space(a).action([k for k in env.action_space(a).key_names if rng.random() < 0.3],
                                                    float(rng.uniform(-20, 20))) for a in env.agents}
            observations, *_ = env.step(actions)
            step += 1
        env.close()
        return frames

    def _reset(self, options: dict) -> tuple[dict, dict]:
        frames = self._frames()
        self.image = np.concatenate(frames, axis=1)
        if self.frames_dir:
            from PIL import Image

            Path(self.frames_dir).mkdir(parents=True, exist_ok=True)
            for i, frame in enumerate(frames):
                Image.fromarray(frame).save(Path(self.frames_dir) / f"frame-{i + 1}.png")
        self.answer = ""
        return {"p0": {"rgb": self.image.copy(), "text": QUESTION}}, {"p0": {"events": []}}

    def _step(self, actions: dict[AgentID, Any]):
        self.answer = str(actions.get("p0") or "")
        event = {"type": "answer", "game": self.game, "text": self.answer[:2000]}
        obs = {"p0": {"rgb": self.image.copy(), "text": QUESTION}}
        return obs, {"p0": 0.0}, {"p0": True}, {"p0": False}, {"p0": {"events": [event]}}

    @staticmethod
    def _title_of(game: str) -> str:
        from rtarena.envs.level_files import read_level
        from rtarena.envs.registry import env_spec

        cls = env_spec(game).load()
        return read_level(cls.level_file, cls.rules_schema).game.title

    def episode_metrics(self) -> dict[AgentID, dict[str, float]]:
        named = self._title_of(self.game).lower() in self.answer.lower()
        return {"p0": {"answer_chars": float(len(self.answer)), "names_the_game": float(named)}}
