from __future__ import annotations

import string

import numpy as np
import pytest
from gymnasium import spaces

from rtarena.agents.llm.parsing import PARSERS, TeamParser, answer_region, parser_for, register_parser

ARENA = spaces.MultiDiscrete([3, 3, 3, 3, 2, 2, 2])
NAMES = ("move_x", "move_y", "yaw", "pitch", "fire", "jump", "minimap")


@pytest.mark.parametrize("reply, expected", [
    ("ACTION: [1, 0, 0, 0, 1, 0, 0]", [1, 0, 0, 0, 1, 0, 0]),
    ('Go for the coin.\nACTION: {"move_y": 2, "yaw": 1}', [0, 2, 1, 0, 0, 0, 0]),
    ("<think>maybe [2,2,2,2,1,1,1]?</think>ACTION: [0,2,0,0,0,0,0]", [0, 2, 0, 0, 0, 0, 0]),
    ("ACTION: [0,0,0,0,0,0,1] no wait\nACTION: 0 2 0 0 1 0 0", [0, 2, 0, 0, 1, 0, 0]),
    ("{'fire': 1}", [0, 0, 0, 0, 1, 0, 0]),
    ("```json\n{\"move_x\": 2, \"jump\": true}\n```", [2, 0, 0, 0, 0, 1, 0]),
])
def test_arena_answers_in_both_documented_forms(reply, expected):
    parsed = parser_for(ARENA, NAMES).parse(reply)
    assert parsed.valid, parsed.error
    np.testing.assert_array_equal(parsed.action, expected)
    assert ARENA.contains(parsed.action)


@pytest.mark.parametrize("reply, why", [
    ("", "empty reply"),
    ("I will move forward now.", "no 7-number list"),
    ("ACTION: [0, 3, 0, 0, 0, 0, 0]", "move_y must be an integer 0..2"),
    ("ACTION: [0, 2, 0]", "expected 7 numbers"),
    ('ACTION: {"speed": 2}', "unknown field 'speed'"),
    ("<think>[0,2,0,0,0,0,0] is good but", "empty reply"),
    ("ACTION: [0, 1.5, 0, 0, 0, 0, 0]", "move_y must be an integer"),
])
def test_anything_else_is_unparsed_never_an_exception(reply, why):
    parsed = parser_for(ARENA, NAMES).parse(reply)
    assert not parsed.valid and parsed.action is None
    assert parsed.error.startswith("unparsed: ") and why in parsed.error


def test_discrete_text_and_box():
    discrete = parser_for(spaces.Discrete(3, start=1))
    assert discrete.parse("I push right.\nACTION: 2").action == 2
    assert not discrete.parse("ACTION: 0").valid  # below start
    assert not discrete.parse("ACTION: left").valid
    text = parser_for(spaces.Text(max_length=64, charset=string.printable))
    assert text.parse("The button is mark 3.\nACTION: `click(3)`").action == "click(3)"
    assert text.parse('type(2, "hello"); key("Enter")').action == 'type(2, "hello"); key("Enter")'
    assert not text.parse("ACTION:   ").valid
    box = parser_for(spaces.Box(-1, 1, shape=(2,)))
    np.testing.assert_allclose(box.parse("ACTION: [0.5, -1]").action, [0.5, -1])
    assert not box.parse("ACTION: [0.5, -2]").valid


def test_team_answer_maps_ids_to_actions_and_flags_missing_ones():
    team = TeamParser({a: parser_for(ARENA, NAMES) for a in ("p0", "p1")})
    actions, ok, error = team.parse('ACTION: {"p0": [0,2,0,0,0,0,0], "p1": {"fire": 1}}')
    assert ok and error is None
    np.testing.assert_array_equal(actions["p1"], [0, 0, 0, 0, 1, 0, 0])
    actions, ok, error = team.parse('ACTION: {"p0": [0,2,0,0,0,0,0]}')
    assert not ok and "p1: missing" in error and list(actions) == ["p0"]
    assert team.parse("no json")[1] is False
    assert team.format({"p0": np.array([0, 2, 0, 0, 0, 0, 0])}) == '{"p0":[0,2,0,0,0,0,0]}'


def test_the_table_is_pluggable():
    class Upper:
        def __init__(self, space, names):
            self.space = space

        def parse(self, text):
            return text.upper()

    register_parser(spaces.Text, Upper)
    try:
        assert isinstance(parser_for(spaces.Text(8)), Upper)
    finally:
        PARSERS.pop(0)
    assert type(parser_for(spaces.Text(8))).__name__ == "TextParser"


def test_answer_region():
    assert answer_region("<think>x</think>a\nACTION: b\nACTION: c").strip() == "c"
