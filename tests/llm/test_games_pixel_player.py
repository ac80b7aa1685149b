"""The scripted suite-game pixel player (`policy=pixels`, policy_server/games_pixels.py) behind the real
protocol: it reads the request alone (the frame, the HUD line, the prompt's legend and level rules) and
plays the runner past random; the same player given a prompt without the legend, or frames with their
colour channels swapped, does not (it cannot find itself, so it waits). In first person
(games_pixels_fp.py) it shoots the monsters it finds by the legend's colour on the radar and in the view;
with the colours swapped it finds none and never fires. On the top-down walker games
(`games_pixels_walk.py`) it answers, moment by moment, what the text stand-in answers from the text view
of the same moment; with swapped colours it does not."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from rtarena.agents.llm import LLMAgent
from rtarena.agents.llm.prompts import LEVEL_RULES_HEADING, observation_message
from rtarena.envs.games.canvas import LABEL_INK, LABEL_PLATE
from rtarena.envs.games.reports import CrystalReport, WorkshopReport, read_hud
from rtarena.envs.registry import make
from rtarena.policy_server import games_pixels_fp as first_person
from rtarena.policy_server import games_pixels_walk as walker
from rtarena.policy_server import games_text
from rtarena.policy_server.frame_legend import find, level_rules, mask, read_legend
from rtarena.policy_server.games_pixels import released
from rtarena.policy_server.games_pixels_fp import read_radar
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


WALK_STEPS = 12  # about a second of a walker game: every answer a move the frame decides


class Beside(LLMAgent):
    """The pixel player's agent sent what a model gets by default (the frame and the HUD line), while the
    test reads the same moment's text view to know what the text stand-in would answer (its own rules)."""

    def setup(self, context) -> None:
        super().setup(context)
        self.expected: list[str] = []
        self.answered: list[str] = []

    def frame(self, rgb):
        return rgb

    def user_message(self, observation: Any):
        text = observation["text"]
        title = games_text.title(text)
        self.expected.append(games_text.play(text, games_text.HEURISTIC_RULES.get(title, ()))[0])
        o = self.options
        sent = {"rgb": self.frame(observation["rgb"]), "hud": observation["hud"]}
        return observation_message(sent, self.turn, ("rgb", "hud"), o.image_size, o.image_format)

    def ask(self, user, observation):
        decision, reply, action = super().ask(user, observation)
        self.answered.append(reply.rpartition("ACTION:")[2].strip())
        return decision, reply, action


class BesideSwapped(Beside):
    def frame(self, rgb):
        return rgb[..., ::-1]


def agreement(agent: Beside, env_id: str, seed: int) -> float:
    """The share of moments where the pixel player answered what the text stand-in would have."""
    env = make(env_id)
    run_match(env, [agent], clock="paused", seed=seed, max_steps=WALK_STEPS)
    env.close()
    pairs = list(zip(agent.expected, agent.answered, strict=True))
    return sum(e == a for e, a in pairs) / max(len(pairs), 1)


# escape: leaving the first room by a doorway read off its walls; workshop (seed 2: the first order is a
# plain gear, so the stand-in walks at once): walking to the gear bin found by its colour
@pytest.mark.parametrize(("env_id", "seed"), [("games/escape-v0", 0), ("games/workshop-v0", 2)])
def test_on_a_walker_game_the_pixel_player_answers_as_the_text_stand_in_and_not_with_swapped_colours(
        server, env_id, seed):
    spec = f"scripted-pixels@{server.url(policy='pixels')},modalities=text+rgb+hud"
    same = agreement(Beside(spec), env_id, seed)
    swapped = agreement(BesideSwapped(spec), env_id, seed)
    assert same >= 0.75 and swapped <= 0.25, (same, swapped)


# ---- the readers on single frames (no server): what they read against the world that drew it ------------------

def request(env_id: str, seed: int, agent: str = "p0"):
    """A game's world after reset, and what a model's request carries of it: the legend, the level rules and
    the HUD line (the frame is rendered by the test, `env._frame`)."""
    env = make(env_id)
    env.reset(seed=seed)
    system = f"{env.documentation()}\n\n{LEVEL_RULES_HEADING}\n{env.rules_text()}"
    hud = read_hud(env._observe(agent)["text"])
    return env, read_legend(system), level_rules(system), hud


def test_the_radar_reader_finds_where_you_face_from_the_small_dot_and_not_on_a_mirrored_frame():
    env, legend, rules, _ = request("games/crystal-v0", 1)
    row, width = find(legend, label="RADAR"), rules["field"]["width_m"]
    for yaw_deg in (0.0, 30.0, 100.0, -150.0):
        env.yaw["p0"] = math.radians(yaw_deg)
        rgb = env._frame("p0")
        facing = math.degrees(read_radar(rgb, row, lambda b: (b[3] - b[1]) / width).facing)
        mirrored = math.degrees(read_radar(rgb[:, ::-1], row, lambda b: (b[3] - b[1]) / width).facing)
        assert abs((facing - yaw_deg + 180) % 360 - 180) <= 4, (yaw_deg, facing)
        assert abs((mirrored - yaw_deg + 180) % 360 - 180) > 20, (yaw_deg, mirrored)


def test_the_crystal_reader_finds_a_pillar_in_the_line_on_the_radar_and_not_with_the_pillars_painted_out(monkeypatch):
    """Seed 0 (three pillars in the middle third), you on a grid west of them facing their crystal: the line
    the reader hands `crystal_play` is the text view's `clear line` (pillars and gates) on at least 90% of the
    spots; on the same frames with the radar's pillars painted in its plate's colour (the screen before the
    radar drew them) the pillar-blocked lines read clear."""
    env, legend, rules, hud = request("games/crystal-v0", 0)
    pillar, plate = find(legend, meaning="a pillar"), find(legend, label="RADAR")
    monkeypatch.setattr(first_person, "crystal_play", lambda _hud, _rel, clear, *_: clear)
    truth, read, painted_out = [], [], []
    for x in range(6, 14, 2):
        for y in range(1, 14, 2):
            env.pos["p0"] = np.array([x, y], dtype=float)
            env.yaw["p0"] = math.atan2(*(env.crystals[1] - env.pos["p0"])[::-1])
            truth.append(CrystalReport.parse(env._report("p0")).theirs.clear)  # the text view's
            rgb = env._frame("p0")
            read.append(first_person.crystal(rgb, legend, rules, hud))
            x0, y0, x1, y1 = first_person.plate(rgb, plate.rgb)
            radar = rgb[y0:y1, x0:x1]  # the view's wooden pillars kept
            radar[mask(radar, pillar.rgb, 10)] = plate.rgb
            painted_out.append(first_person.crystal(rgb, legend, rules, hud))
    truth, read, painted_out = np.array(truth), np.array(read), np.array(painted_out)
    assert (~truth).sum() >= 6 and (read == truth).mean() >= 0.9, (truth, read)
    assert (read != painted_out).sum() >= 4 and (painted_out == truth).mean() < 0.8, (truth, painted_out)


def read_facts(monkeypatch, reader, rgb, legend, rules, hud) -> WorkshopReport | None:
    """The facts a walker reader hands the text stand-in's decision (`workshop_play`, watched, still called)."""
    seen = []

    def watched(report, *args):
        seen.append(report)
        return games_text.workshop_play(report, *args)

    monkeypatch.setattr(walker, "workshop_play", watched)
    reader(rgb, legend, rules, hud)
    return seen[-1] if seen else None


def close(read: tuple[float, float], true) -> bool:
    return math.hypot(read[0] - true[0], read[1] - true[1]) <= 0.5


def test_the_midline_reader_takes_the_stations_flagged_yours_and_the_loose_parts_with_flags_swapped_the_rivals(
        monkeypatch):
    env, legend, rules, hud = request("games/midline-v0", 0)
    rgb, me = env._frame("p0"), env.pos["p0"]
    facts = read_facts(monkeypatch, walker.midline, rgb, legend, rules, hud)
    assert facts is not None and set(facts.stations) == {"bench", "counter", "trash"}, facts
    assert all(close(at, env.own["p0"][name] - me) for name, at in facts.stations.items()), facts.stations
    loose = sorted((kind, tuple(np.round(p - me, 1))) for kind, p in env.floor)
    assert len(facts.floor) == len(loose) and all(
        any(k == kind and close(at, p) for k, p in loose) for kind, at in facts.floor), (facts.floor, loose)
    swapped = [replace(r, meaning=r.meaning.replace("your side", "the rival's side")) if r.shape == "flag" and
               "your side" in r.meaning else replace(r, meaning="a blue flag marks a station of your side")
               if r.shape == "flag" else r for r in legend]
    theirs = read_facts(monkeypatch, walker.midline, rgb, swapped, rules, hud)
    assert theirs is not None and all(close(at, env.own["p1"][name] - me) for name, at in theirs.stations.items())


def test_the_handoff_reader_finds_every_window_and_what_it_holds_and_your_role_from_your_side(monkeypatch):
    env, legend, rules, hud = request("games/handoff-v0", 0)
    # seed 0: on the maker's frame name plates hide window 2 (worth a look once no window shows a part) and the
    # counter (found under the plate nothing shown claims); the runner's frame shows everything
    hidden = {"p0": set(), "p1": {"window 2"}}
    for agent, role, shown in (("p0", "runner", True), ("p1", "maker", True), ("p1", "maker", False)):
        env.windows["window 1"] = ("gear", 0.0) if shown else None
        rgb, me = env._frame(agent), env.pos[agent]
        facts = read_facts(monkeypatch, walker.handoff, rgb, legend, rules, read_hud(env._observe(agent)["text"]))
        assert facts is not None and facts.role == role, facts
        want = {name: (env.window_pos[name] - me, walker.HIDDEN if name in hidden[agent] and not shown else
                       env.windows[name][0] if env.windows[name] else None) for name in env.window_pos}
        assert set(facts.windows) == set(want), (facts.windows, want)
        assert all(close(at, want[n][0]) and item == want[n][1] for n, (at, item) in facts.windows.items()), facts
        mine = {n: p - me for n, p in env.stations.items() if env._side(p) == env._side(me)}
        assert all(n in facts.stations and close(facts.stations[n], at) for n, at in mine.items()), facts.stations
    no_plates = [r for r in legend if r.label != "ORDERS"]  # no board: the plates' colour is not known
    maker = read_facts(monkeypatch, walker.handoff, env._frame("p1"), no_plates, rules,
                       read_hud(env._observe("p1")["text"]))
    assert maker is not None and "counter" not in maker.stations, maker.stations
    no_windows = [r for r in legend if r.shape != "window"]
    assert walker.handoff(env._frame("p0"), no_windows, rules, hud) is None


def test_the_kitchen_reader_puts_a_station_the_prompt_acts_on_under_you_where_name_plates_hide_it(monkeypatch):
    env, legend, rules, _ = request("games/kitchen-v0", 0)
    env.orders = [{"item": "bolt", "expires_s": 30.0, "points": 1}]
    env.pos["p0"] = env.stations["bolt bin"] + np.array([0.8, 0.0])  # beside the bin: its plate and yours cover it
    rgb, hud = env._frame("p0"), read_hud(env._observe("p0")["text"])
    assert hud.status.endswith("Press E to take a bolt"), hud
    assert not walker._things(rgb[walker.hud_bottom(rgb):], [find(legend, label="BOLT BIN")]), "the bin shows"
    facts = read_facts(monkeypatch, walker.workshop, rgb, legend, rules, hud)
    assert facts is not None and facts.stations["bolt bin"] == (0.0, 0.0), facts
    assert walker.workshop(rgb, legend, rules, hud)[0] == "0 0 ; E"
    unsaid = replace(hud, status=hud.status.rpartition(" | ")[0])  # the prompt cut: the bin is not known to be there
    assert walker.workshop(rgb, legend, rules, unsaid)[0] != "0 0 ; E"


def test_the_midline_reader_finds_you_under_your_name_plate_beside_a_station_and_not_with_the_plates_blank(
        monkeypatch):
    env, legend, rules, _ = request("games/midline-v0", 0)
    env.pos["p0"] = env.own["p0"]["trash"] + np.array([0.9, 0.0])  # the station's plate pushes yours over you
    rgb, me, hud = env._frame("p0"), env.pos["p0"], read_hud(env._observe("p0")["text"])
    assert walker._room(rgb, legend, rules, hud).me is None, "your icon shows"
    assert "Press E" not in hud.status, hud  # the prompt does not say where you are
    facts = read_facts(monkeypatch, walker.midline, rgb, legend, rules, hud)
    assert facts is not None and set(facts.stations) == {"bench", "counter", "trash"}, facts
    assert all(close(at, env.own["p0"][name] - me) for name, at in facts.stations.items()), facts.stations
    blank = rgb.copy()  # the words on the floor's name plates painted out in the plate's colour: none reads YOU
    below = np.flatnonzero((rgb == find(legend, meaning="the order board").rgb).all(axis=2).any(axis=1)).max() + 1
    floor, line = blank[below:], np.subtract(LABEL_PLATE, LABEL_INK)
    share = np.clip((floor.astype(float) - LABEL_INK) @ line / (line @ line), 0.0, 1.0)
    inked = np.linalg.norm(floor - LABEL_INK - share[..., None] * line, axis=2) <= 8  # ink and its blends
    floor[inked & (share < 0.9)] = LABEL_PLATE
    assert read_facts(monkeypatch, walker.midline, blank, legend, rules, hud) is None
    assert "cannot see myself" in walker.midline(blank, legend, rules, hud)[1]


def test_the_pixel_player_lets_go_of_a_tap_key_its_last_answer_held_before_it_presses_it_again():
    # E held from one answer to the next is no new press (the key acts as it goes down): seen in Midline, where a
    # part taken off the bench to look at it stayed in hand to the end. The history carries the last answer.
    before = "Midline: taking the bolt+ from the bench\nACTION: 0 0 ; E"
    assert released("0 0 ; E", before) == "0 0 ; -"
    assert released("0 0 ; D E", before) == "0 0 ; D"  # the keys it walks with stay down
    assert released("0 0 ; E", "ACTION: 0 0 ; D*3") == "0 0 ; E"  # let go already: pressed at once
    assert released("0 0 ; E", "") == "0 0 ; E"  # no history: the first answer
    hold = "0 0 ; E ; E ; E ; E"  # "Hold E to work": a hold goes on from answer to answer
    assert released(hold, f"ACTION: {hold}") == hold
