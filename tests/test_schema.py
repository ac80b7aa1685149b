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


def _bundled_rules():
    from rtarena.improve.lints import RULES_FILE, read_rules
    from rtarena.policy_server.skill_player import SKILL_RULES, read_skill_rules

    return {"rules.toml": (RULES_FILE, read_rules), "skill_rules.toml": (SKILL_RULES, read_skill_rules)}


@pytest.mark.parametrize("name, old, new, line", [
    ("rules.toml", "pattern = '\\(", "pattern = '(", r"lint.banned\[0\].pattern: is not a regular expression"),
    ("rules.toml", 'id = "agreement"', 'id = "agreement"\nweight = 2', r"judge.rule\[2\].weight: unknown field"),
    ("rules.toml", "[[lint.banned]]\nid = \"no_map_memory\"", "[[lint.banned]]\nid = \"no_maps\"",
     r"lint.banned: no_maps is no \[\[judge.rule\]\] id"),
    ("skill_rules.toml", 'pattern = "against the swing"', 'pattern = "against the (swing"',
     r"rule\[1\].pattern: is not a regular expression"),
    ("skill_rules.toml", 'family = "classic"\nbullet = "When', 'bullet = "When', r"rule\[1\].family: is required"),
    ("skill_rules.toml", 'id = "swing"', 'id = "lean"', "rule: ids must be unique"),
])
def test_the_rule_files_are_read_through_the_typed_base(tmp_path, name, old, new, line):
    """The improvement loop's rules.toml and the policy server's skill_rules.toml: one line per mistake."""
    bundled, read = _bundled_rules()[name]
    read(bundled)  # the bundled file is valid
    text = bundled.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(UserError, match=f"{name}: {line}") as caught:
        read(path)
    assert "\n" not in str(caught.value)
