"""The typed-settings base: one policy for ranges, NaN, booleans and unknown keys, one line per error."""

from __future__ import annotations

import pytest

from rtarena.errors import UserError
from rtarena.schema import Flag, NonNegInt, PosFloat, Section, read_toml, unit_of, validate


class Turret(Section):
    range_m: PosFloat = 20.0
    enabled: Flag = True
    count: NonNegInt = 6


class Level(Section):
    turret: Turret = Turret()


@pytest.mark.parametrize("data, line", [
    ({"turret": {"range_m": -30}}, "coop.toml: turret.range_m: must be > 0 metres, got -30"),
    ({"turret": {"range_m": "-30"}}, "coop.toml: turret.range_m: must be > 0 metres, got -30"),
    ({"turret": {"range_m": "nan"}}, "coop.toml: turret.range_m: must be a finite number of metres, got nan"),
    ({"turret": {"range_m": float("inf")}}, "coop.toml: turret.range_m: must be a finite number of metres, got inf"),
    ({"turret": {"enabled": "yes"}}, "coop.toml: turret.enabled: must be true or false, got 'yes'"),
    ({"turret": {"enabled": 1}}, "coop.toml: turret.enabled: must be true or false, got 1"),
    ({"turret": {"count": True}}, "coop.toml: turret.count: must be a number, not true/false, got true"),
    ({"turret": {"count": "-1"}}, "coop.toml: turret.count: must be >= 0, got -1"),
    ({"turret": {"count": 2.5}}, "coop.toml: turret.count: must be a whole number, got 2.5"),
    ({"turret": {"colour": 1}}, "coop.toml: turret.colour: unknown field; fields are: range_m, enabled, count"),
    ({"turret": {"cnt": 1}}, "coop.toml: turret.cnt: unknown field; did you mean 'count'?"),
])
def test_one_line_per_mistake(data, line):
    with pytest.raises(UserError) as caught:
        validate(Level, data, source="coop.toml")
    assert str(caught.value) == line


def test_strict_booleans_accept_true_and_false_text():
    assert validate(Level, {"turret": {"enabled": "FALSE"}}).turret.enabled is False
    assert validate(Level, {"turret": {"enabled": True}}).turret.enabled is True


def test_units_by_suffix():
    assert [unit_of(n) for n in ("range_m", "turn_deg_s", "speed_m_s", "time_s", "count")] == [
        "metres", "degrees per second", "metres per second", "seconds", ""]


def test_read_toml_refuses_folders_and_binary(tmp_path):
    junk = tmp_path / "junk.toml"
    junk.write_bytes(b"\xff\xfe\x00binary")
    for path, words in ((tmp_path, "is a folder"), (junk, "not a text"), (tmp_path / "no.toml", "no such")):
        with pytest.raises(UserError, match=words):
            read_toml(path)
