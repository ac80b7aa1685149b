"""The suite's action interface: the space layout and the chunked text form."""

from __future__ import annotations

import numpy as np
import pytest

from rtarena.envs.games.keys import MAX_CHUNK_STEPS, KeyMouseSpace, format_chunk, parse_chunk

SPACE = KeyMouseSpace(["W", "A", "S", "D", "Space", "LMB"], mouse=True)


def held(chunk) -> list[list[str]]:
    return [sorted(SPACE.held(a)) for a in chunk.actions]


def test_layout_is_keys_then_mouse():
    action = SPACE.action(["W", "Space"], 10.0, -5.0)
    assert action["keys"].tolist() == [1, 0, 0, 0, 1, 0]
    assert action["mouse"].tolist() == [10.0, -5.0]
    assert SPACE.contains(action)
    assert SPACE.contains(SPACE.action([], 500.0, 0.0))  # mouse moves are clipped to the bounds


def test_chunk_mouse_then_one_group_per_step():
    chunk = parse_chunk("12.5 -3 ; W D ; W ; Space", SPACE)
    assert chunk.valid and held(chunk) == [["D", "W"], ["W"], ["Space"]]
    assert chunk.actions[0]["mouse"].tolist() == [12.5, -3.0]
    assert chunk.actions[1]["mouse"].tolist() == [0.0, 0.0]  # the move applies on the first step only


@pytest.mark.parametrize("text, expected", [
    ("W ; W", [["W"], ["W"]]),  # no mouse part
    ("`0 0 ; w+d ; space`", [["D", "W"], ["Space"]]),  # backticks, lower case, plus signs
    ("0 0 | W, A | jump", [["A", "W"], ["Space"]]),  # bars, commas, aliases
    ("0 0 ; W*3 ; - ; click", [["W"], ["W"], ["W"], [], ["LMB"]]),  # repeats, empty step, alias
    ("0 0 ; W x2 ; banana D", [["W"], ["W"], ["D"]]),  # `x2`, unknown words dropped
    ("wait", [[]]),
])
def test_tolerant_parsing(text, expected):
    chunk = parse_chunk(text, SPACE)
    assert chunk.valid and held(chunk) == expected


@pytest.mark.parametrize("text", ["", "banana", "I think I should go left", None])
def test_unparsable_is_invalid(text):
    chunk = parse_chunk(text, SPACE)
    assert not chunk.valid and chunk.actions == () and "unparsed" in chunk.error


def test_keys_the_game_lacks_are_dropped_and_chunks_are_capped():
    space = KeyMouseSpace(["W", "A", "S", "D"], mouse=False)
    assert [sorted(space.held(a)) for a in parse_chunk("0 0 ; W Space", space).actions] == [["W"]]
    assert len(parse_chunk("W*100", space).actions) == MAX_CHUNK_STEPS


def test_format_round_trips():
    actions = parse_chunk("5 0 ; W D ; - ; Space", SPACE).actions
    text = format_chunk(actions, SPACE)
    assert text == "5 0 ; W D ; - ; Space"
    again = parse_chunk(text, SPACE).actions
    assert all(np.array_equal(a["keys"], b["keys"]) for a, b in zip(actions, again, strict=True))


def test_unknown_keys_in_a_declaration_fail():
    with pytest.raises(ValueError, match="unknown keys"):
        KeyMouseSpace(["W", "Q"], mouse=False)
