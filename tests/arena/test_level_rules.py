"""Level files: typed rules, inheritance in the data, and docstrings filled from the rules."""

from __future__ import annotations

import pytest

import rtarena
from rtarena.envs.arena.levels import CompetitiveLevel, CoopLevel
from rtarena.envs.arena.rules import LEVELS_DIR, load_rules
from rtarena.envs.level_files import read_tables
from rtarena.errors import UserError


def test_basic_extends_coop_and_scales_it_down_for_one_player():
    rules, coop = load_rules("basic.toml"), load_rules("coop.toml")
    assert rules.extends == "coop.toml" and rules.players.count == 1 and rules.arena.size_m == 50.0
    assert rules.weapon == coop.weapon and rules.points == coop.points  # the rest is coop's, written once
    assert len((LEVELS_DIR / "basic.toml").read_text().splitlines()) < 40


def test_competitive_and_mixed_extend_coop_and_change_only_the_teams():
    coop = load_rules("coop.toml").as_dict()
    for name, teams in (("competitive.toml", "each"), ("mixed.toml", 2)):
        rules = load_rules(name)
        assert rules.extends == "coop.toml" and rules.players.teams == teams
        changed = {(t, k) for t, table in rules.as_dict().items() for k, v in table.items() if coop[t][k] != v}
        assert changed == {("players", "teams")}
        assert len((LEVELS_DIR / name).read_text().splitlines()) < 10  # a small override, not a copy


def test_a_child_level_file_overrides_its_parent(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('extends = "coop.toml"\n[turret]\nrange_m = 35.0\n')
    rules = load_rules(path, overrides={"coins.count": 3})
    assert (rules.turret.range_m, rules.turret.count, rules.coins.count) == (35.0, 6, 3)
    assert read_tables(path, LEVELS_DIR)["turret"]["damage"] == 15.0  # the rest comes from coop.toml


@pytest.mark.parametrize(("overrides", "line"), [
    ({"turret.range_m": -30}, "coop.toml: turret.range_m: must be > 0 metres, got -30"),
    ({"turret.range_m": "nan"}, "coop.toml: turret.range_m: must be a finite number of metres, got nan"),
    ({"coins.enabled": "yes"}, "coop.toml: coins.enabled: must be true or false, got 'yes'"),
    ({"toxic_zone.end_radius_m": 80}, "coop.toml: toxic_zone: end_radius_m 80 is above start_radius_m 72 metres"),
])
def test_the_same_mistake_gives_the_same_line_from_python_and_the_command_line(overrides, line):
    with pytest.raises(UserError) as caught:
        rtarena.make("arena/coop-v0", overrides=overrides)
    assert str(caught.value) == line
    from rtarena.eval.customize import arena_kwargs

    key, value = next(iter(overrides.items()))
    with pytest.raises(UserError) as from_cli:
        arena_kwargs("arena/coop-v0", sets=[f"{key}={value}"])
    assert str(from_cli.value) == line


def test_booleans_are_strict_and_accept_true_and_false():
    assert not load_rules("coop.toml", overrides={"coins.enabled": "false"}).coins.enabled
    assert load_rules("coop.toml", overrides={"weapon.friendly_fire": "TRUE"}).weapon.friendly_fire


def test_docstrings_are_filled_from_the_level_files_and_instances_from_their_rules():
    assert "24 coins" in CoopLevel.__doc__ and "{" not in CoopLevel.__doc__
    assert "4 players, each for itself" in CompetitiveLevel.__doc__
    env = rtarena.make("arena/coop-v0", overrides={"coins.count": 7, "turret.count": 1})
    assert "7 coins" in env.documentation() and "1 turrets" in env.documentation()
    assert "count = 7" in env.rules_text()


def test_every_points_key_scores_one_event_and_the_metrics_count_the_same_events():
    from rtarena.envs.arena.metrics import COUNTED, SCORED
    from rtarena.envs.arena.rules import Points

    assert sorted(key for _, key, _ in SCORED.values()) == sorted(Points.model_fields)
    assert all(COUNTED[kind] == (who, metric) for kind, (who, _, metric) in SCORED.items())
