"""The contamination probe: three frames of a suite game, and one question, "which game is this?"."""

from __future__ import annotations

import re
import string
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from rtarena.envs.base import AgentID, RealtimeParallelEnv
from rtarena.envs.games.base import DEFAULT_SIZE
from rtarena.errors import UserError

QUESTION = ("These are three frames, left to right in time, from a video game. Name the game if you know "
            "it (or say you do not), then describe its mechanics in two or three sentences: what the player "
            "controls, the goal, and what makes it hard. Answer on one line after `ACTION:`.")
JUDGE_QUESTION = ("A player was shown frames of a video game and asked to describe its mechanics. Below are the "
                  "game's real mechanics, numbered, then the player's answer. Which mechanics does the answer "
                  "describe correctly? Answer on one line after `ACTION:` with their numbers separated by "
                  "spaces, or `none`.")
FRAMES = 3
PLAY_S = 12.0  # the seeded random play the frames are chosen from
# fallback moments (shares of the play) where the episode shows fewer than three mechanics happening
SPREAD = (0.35, 0.65, 0.95)


def informative_moments(events: list[tuple[int, str]], steps: int, min_gap: int, count: int = FRAMES,
                        spread: tuple[float, ...] = SPREAD) -> list[tuple[int, str]]:
    """The steps to show, by a rule over the episode's record: the first time each kind of event happens to the
    player (a pickup, a hit, a warned tile, a fall: a mechanic at work), in order, at least `min_gap` steps
    apart (a kind too near the one before is taken at its next time), `count` at most; where fewer kinds
    happened, moments spread over the play fill in (`spread`, shares of `steps`, kind "spread"). Never the
    opening second, when nothing has happened yet. The probe shows three; the reflector's evidence
    (`improve/evidence.py`) reads the same rule over a recorded episode."""
    chosen: list[tuple[int, str]] = []
    for step, kind in events:
        if step < min_gap:  # the opening second: what happens then (the first order, a spawn) shows little
            continue
        shown = any(kind == k for _, k in chosen)
        if not shown and all(abs(step - s) >= min_gap for s, _ in chosen) and len(chosen) < count:
            chosen.append((step, kind))
    for share in spread:
        step = max(1, round(share * steps))
        if len(chosen) < count and all(abs(step - s) >= min_gap for s, _ in chosen):
            chosen.append((step, "spread"))
    for share in spread:  # a short episode: the spread moments, however near, each step once
        step = max(1, round(share * steps))
        if len(chosen) < count and all(step != s for s, _ in chosen):
            chosen.append((step, "spread"))
    for share in spread:  # a play too short for that: repeats
        if len(chosen) < count:
            chosen.append((max(1, round(share * steps)), "spread"))
    return sorted(chosen)


class IdentifyProbe(RealtimeParallelEnv):
    """Three frames of one suite game and a question: can a model name the game and its mechanics?

    ## Description
    A one-question episode for the contamination check (docs/games.md). At reset the probe plays the
    game named by `game` (any suite env id) with seeded random keys for up to 12 s and takes player p0's
    view at three informative moments, chosen by a rule over the episode's record
    (`informative_moments`: the first time each kind of event happens to p0, a mechanic at work, then
    moments spread over the play; no title: the frames show the HUD line and name plates, never the
    game's name), and shows the three frames side by side with a question: name the game and describe
    its mechanics. The answer is recorded with the run (the decision's raw text, and an
    `answer` event); with `frames_dir` (set by the runner) the frames are saved as PNGs beside it.

    ## Observation
    `rgb`: the three frames side by side (size x 3 size). `hud` and `text`: the question (a model agent's
    default view is `rgb+hud`, so the frames are sent).

    ## Action Space
    `Text`: the answer (one line).

    With `judge=True` a second seat, `judge`, is given the answer and the game's mechanics list (its level
    file's `[probe] mechanics`, numbered; text only) one step later and answers with the numbers of the
    mechanics the answer describes correctly.

    ## Rewards and Score
    No reward. Metrics: `answer_chars`; `names_the_game` is 1 when the answer contains the suite
    game's own title (which no model should know; a model that names a commercial game instead is
    what a reader looks for in the stored answers); with a judge, `mechanics_described`: the fraction of
    the mechanics list the judge found in the answer (the paper's "mechanics described" rate).

    ## Termination
    After the one answer (with a judge: after the judge's verdict, one step later).

    ## Registered Configurations
    - `probe/identify-v0` (`game="games/duel-v0"` by default; the `suite-identify` preset asks about all
      twelve)
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": [], "name": "identify_probe", "is_parallelizable": True}

    def __init__(self, game: str = "games/duel-v0", size: int = DEFAULT_SIZE, frames_dir: str | None = None,
                 judge: bool = False) -> None:
        super().__init__()
        if not game.startswith("games/"):
            raise UserError(f"game must be a suite env id (games/...), got {game!r}", field="game")
        self.game, self.size, self.frames_dir = game, int(size), frames_dir
        self.dt = 1.0
        self.possible_agents = ["p0", "judge"] if judge else ["p0"]
        self._judge_space = spaces.Dict({
            "hud": spaces.Text(max_length=4000, min_length=0, charset=string.printable),
            "text": spaces.Text(max_length=4000, min_length=0, charset=string.printable),
        })
        self._obs_space = spaces.Dict({
            "rgb": spaces.Box(0, 255, (self.size, 3 * self.size, 3), np.uint8),
            "hud": spaces.Text(max_length=2000, min_length=0, charset=string.printable),
            "text": spaces.Text(max_length=2000, min_length=0, charset=string.printable),
        })
        self._act_space = spaces.Text(max_length=2000, min_length=0, charset=string.printable)

    def observation_space(self, agent: AgentID) -> spaces.Dict:
        return self._judge_space if agent == "judge" else self._obs_space

    def action_space(self, agent: AgentID) -> spaces.Text:
        return self._act_space

    def _frames(self) -> list[np.ndarray]:
        """Seeded random play of the game, recorded; then the same play again, drawing p0's view at the
        moments `informative_moments` picks from the record (the frame is drawn only there)."""
        from rtarena.envs.registry import make

        seed = int(self.np_random.integers(1 << 30))
        events, steps, _ = self._play(make(self.game, obs=("hud",)), seed, set())
        self.moments = informative_moments(events, steps, max(1, round(1.0 / self._dt)))
        frames = self._play(make(self.game, obs=("hud",), size=self.size), seed, {s for s, _ in self.moments})[2]
        return [frames[s] for s, _ in self.moments]

    def _play(self, env: Any, seed: int, draw_at: set[int]) -> tuple[list[tuple[int, str]], int, dict]:
        """One seeded random play of up to `PLAY_S`: p0's events by step, the steps played, and p0's frame at
        each step of `draw_at`."""
        env.reset(seed=seed)
        self._dt = float(env.dt)
        rng = np.random.default_rng(seed)
        events, frames, step = [], {}, 0
        while env.agents and step < round(PLAY_S / env.dt):
            actions = {a: env.action_space(a).action([k for k in env.action_space(a).key_names if rng.random() < 0.3],
                                                    float(rng.uniform(-20, 20))) for a in env.agents}
            _, _, _, _, infos = env.step(actions)
            step += 1
            events += [(step, e["type"]) for e in infos.get("p0", {}).get("events", [])]
            if step in draw_at:
                frames[step] = env._frame("p0")
        for late in draw_at - set(frames):  # the play ended before a spread moment: its last view
            frames[late] = env._frame("p0")
        env.close()
        return events, step, frames

    def _reset(self, options: dict) -> tuple[dict, dict]:
        frames = self._frames()
        self.image = np.concatenate(frames, axis=1)
        if self.frames_dir:
            from PIL import Image

            Path(self.frames_dir).mkdir(parents=True, exist_ok=True)
            for i, frame in enumerate(frames):
                Image.fromarray(frame).save(Path(self.frames_dir) / f"frame-{i + 1}.png")
        self.answer, self.verdict = "", None
        observations = {"p0": self._observation()}
        if "judge" in self.possible_agents:
            observations["judge"] = self._judge_observation()
        return observations, {a: {"events": []} for a in self.possible_agents}

    def _observation(self) -> dict[str, Any]:
        return {"rgb": self.image.copy(), "hud": QUESTION, "text": QUESTION}

    def _judge_observation(self) -> dict[str, str]:
        if not self.answer:
            text = "No answer yet: wait (answer `none`)."
        else:
            listed = "\n".join(f"{i}. {m}" for i, m in enumerate(self._mechanics(), 1))
            text = f"{JUDGE_QUESTION}\n\nMechanics:\n{listed}\n\nAnswer: {self.answer}"
        return {"hud": text, "text": text}

    def _mechanics(self) -> tuple[str, ...]:
        return self._rules_of(self.game).probe.mechanics

    def _step(self, actions: dict[AgentID, Any]):
        if "p0" in self.agents:
            self.answer = str(actions.get("p0") or "")
            event = {"type": "answer", "game": self.game, "text": self.answer[:2000]}
            obs = {a: self._judge_observation() if a == "judge" else self._observation() for a in self.agents}
            infos = {a: {"events": [event] if a == "p0" else []} for a in self.agents}
            return (obs, {a: 0.0 for a in self.agents}, {a: a == "p0" for a in self.agents},
                    {a: False for a in self.agents}, infos)
        numbers = {int(n) for n in re.findall(r"\d+", str(actions.get("judge") or ""))}
        self.verdict = sorted(n for n in numbers if 1 <= n <= len(self._mechanics()))
        event = {"type": "verdict", "game": self.game, "described": self.verdict}
        return ({"judge": self._judge_observation()}, {"judge": 0.0}, {"judge": True}, {"judge": False},
                {"judge": {"events": [event]}})

    @staticmethod
    def _rules_of(game: str) -> Any:
        from rtarena.envs.level_files import read_level
        from rtarena.envs.registry import env_spec

        cls = env_spec(game).load()
        return read_level(cls.level_file, cls.rules_schema)

    def episode_metrics(self) -> dict[AgentID, dict[str, float]]:
        named = self._rules_of(self.game).game.title.lower() in self.answer.lower()
        out = {"p0": {"answer_chars": float(len(self.answer)), "names_the_game": float(named)}}
        if self.verdict is not None:
            out["p0"]["mechanics_described"] = len(self.verdict) / len(self._mechanics())
        return out
