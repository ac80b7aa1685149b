"""The scripted suite-game pixel player (`policy=pixels`, policy_server/games_pixels.py) behind the real
protocol: it reads the request alone (the frame, the HUD line, the prompt's legend and level rules) and
plays the runner past random; the same player given a prompt without the legend, or frames with their
colour channels swapped, does not (it cannot find itself, so it waits). In first person
(games_pixels_fp.py) it shoots the monsters it finds by the legend's colour on the radar and in the view;
with the colours swapped it finds none and never fires."""

from __future__ import annotations

import re
from typing import Any

from rtarena.agents.llm import LLMAgent
from rtarena.envs.registry import make
from rtarena.runtime.match import run_match

STEPS = 40  # two seconds of the runner: far enough to reach (and jump) the first gap


class NoLegend(LLMAgent):
    """The pixel player's agent with the legend's rows cut from its prompt (the negative control)."""

    def setup(self, context) -> None:
        super().setup(context)
        self.system = re.sub(r"What you see on the frame.*?\n(?:- .*\n)+", "", self.system)


class SwappedColours(LLMAgent):
    """The pixel player's agent sending each frame with red and blue swapped (the negative control)."""

    def user_message(self, observation: Any):
        return super().user_message({**observation, "rgb": observation["rgb"][..., ::-1]})


def played_score(agent: LLMAgent, game: str = "runner2d", steps: int = STEPS) -> float:
    env = make(f"games/{game}-v0")
    run_match(env, [agent], clock="paused", seed=0, max_steps=steps)
    score = env.scores["p0"]
    env.close()
    return score


def test_the_pixel_player_reads_the_frame_with_the_legend_and_outruns_random_without_it_it_does_not(server):
    pixels = server.url(policy="pixels")
    played = LLMAgent(f"scripted-pixels@{pixels}")
    score = played_score(played)
    random = played_score(LLMAgent(f"scripted-random@{server.url(policy='random')}"))
    blind = played_score(NoLegend(f"scripted-pixels@{pixels}"))
    swapped = played_score(SwappedColours(f"scripted-pixels@{pixels}"))
    assert score > 3 * random and score > 0.1, (score, random)
    assert blind < score / 3 and swapped < score / 3, (blind, swapped, score)


MONSTER_STEPS = 20  # two seconds: turning onto the first monster and a shot or two at it


def test_the_pixel_player_shoots_monsters_it_reads_off_the_radar_and_view_with_colours_swapped_it_finds_none(server):
    pixels = server.url(policy="pixels")
    score = played_score(LLMAgent(f"scripted-pixels@{pixels}"), "monsters", MONSTER_STEPS)
    swapped = played_score(SwappedColours(f"scripted-pixels@{pixels}"), "monsters", MONSTER_STEPS)
    assert score >= 0.05, score  # a hit is 25 of the 500 health points: 0.05 (random's mean: 0, bench/games_pixels.py)
    assert swapped == 0.0, swapped
