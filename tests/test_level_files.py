"""The one level reader (`envs/level_files.py`): every family's files, one override form, no Python defaults."""

from __future__ import annotations

import re

import pytest

import rtarena
from rtarena.envs.arena.rules import LEVELS_DIR, LevelRules
from rtarena.envs.games.rules import LEVELS
from rtarena.envs.gui.spec import TaskSpec
from rtarena.envs.level_files import META, read_level, read_tables, rule_keys
from rtarena.envs.registry import ENV_TABLE
from rtarena.errors import UserError
from rtarena.schema import model_in

GAMES = {spec.load().level_file: spec.load().rules_schema
         for spec in ENV_TABLE if spec.family == "games" and "variant" not in spec.kwargs}
LEVEL_FILES = [(LEVELS / name, schema) for name, schema in GAMES.items()] + [(LEVELS_DIR / "coop.toml", LevelRules)]


def defaults(schema, prefix=""):
    """The dotted names of the fields that have a Python default (meta keys aside)."""
    out = []
    for name, info in schema.model_fields.items():
        if name in META or name == "hud":  # `hud` is a renderer switch, present only when switched off
            continue
        sub = model_in(info.annotation)
        if sub is not None:
            out += defaults(sub, f"{prefix}{name}.")
        elif not info.is_required():
            out.append(prefix + name)
    return out


@pytest.mark.parametrize("schema", [*dict.fromkeys(GAMES.values()), LevelRules], ids=lambda s: s.__name__)
def test_no_level_schema_field_has_a_python_default(schema):
    assert defaults(schema) == []


def without(text: str, key: str) -> str:
    """The level file's text without the line that sets `section.key` (a top-level key has no section)."""
    section, _, name = key.rpartition(".")
    table, out, open_brackets = "", [], 0
    for line in text.splitlines():
        code = line.split("#")[0]
        if open_brackets:  # the rest of a value written over several lines
            open_brackets += code.count("[") - code.count("]")
            continue
        header = re.match(r"\[([\w.]+)\]", line.strip())
        table = header.group(1) if header else table
        if table == section and re.match(rf"{re.escape(name)}\s*=", line.strip()):
            open_brackets = code.count("[") - code.count("]")
            continue
        out.append(line)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize(("path", "schema"), LEVEL_FILES, ids=lambda p: getattr(p, "name", ""))
def test_a_level_file_missing_any_field_is_refused_naming_the_file_and_the_field(tmp_path, path, schema):
    text, data = path.read_text(), read_tables(path)
    keys = ["summary"] + [k for k in rule_keys(schema) if k.partition(".")[0] in data and k != "hud.enabled"]
    assert len(keys) > 10
    for key in keys:
        broken = tmp_path / path.name
        broken.write_text(without(text, key))
        with pytest.raises(UserError) as caught:
            read_level(broken, schema)
        assert str(caught.value) == f"{broken}: {key}: is required", key


def test_dotted_and_nested_overrides_are_one_form_for_games_and_the_arena():
    dotted = read_level("tilefall.toml", GAMES["tilefall.toml"], "var2", {"drops.warning_s": 2.0, "game.dt": 0.2})
    nested = read_level("tilefall.toml", GAMES["tilefall.toml"], "var2", {"drops": {"warning_s": 2.0}, "game.dt": 0.2})
    assert dotted == nested and dotted.drops.pattern == "cluster" and dotted.drops.warning_s == 2.0
    arena = read_level("coop.toml", LevelRules, overrides={"turret": {"range_m": 31}})
    assert arena.turret.range_m == 31 and arena.source == "coop.toml"
    with pytest.raises(UserError, match=r"^tilefall.toml \[var1\]: unknown rule 'drops\.speed'; rules are: game\."):
        read_level("tilefall.toml", GAMES["tilefall.toml"], "var1", {"drops": {"speed": 2}})
    with pytest.raises(UserError, match=r"^coop.toml: variant: unknown variant 'var1' \(this level has: none\)"):
        read_level("coop.toml", LevelRules, "var1")


def test_a_variant_and_an_extends_chain_in_one_file(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('extends = "coop.toml"\nsummary = "mine"\n[turret]\nrange_m = 35.0\n'
                    '[variants.far]\nabout = "longer turrets"\nturret = { range_m = 50.0 }\n')
    assert read_level(path, LevelRules).turret.range_m == 35.0
    far = read_level(path, LevelRules, "far", {"coins.count": 3})
    assert (far.turret.range_m, far.turret.damage, far.coins.count, far.summary) == (50.0, 15.0, 3, "mine")


def test_browser_task_files_go_through_the_same_reader():
    spec = read_level("pong.toml", TaskSpec, overrides={"time_limit_s": 30.0, "deadline_s": 30.0})
    assert (spec.name, spec.time_limit_s, spec.source) == ("pong", 30.0, "pong.toml")


def test_registry_rows_take_their_summaries_from_the_level_files():
    for spec in ENV_TABLE:
        family, name = spec.id.split("/")[0], spec.id.split("/")[1].split("-")[0]
        home = {"arena": LEVELS_DIR, "games": LEVELS}.get(family)
        if home is not None:
            assert read_tables(f"{name}.toml", home)["summary"] in spec.summary
    assert rtarena.registry_ids()


def test_set_reaches_a_suite_game_through_the_same_reader():
    from rtarena.eval.customize import arena_kwargs

    kwargs = arena_kwargs("games/tilefall-var2-v0", sets=["drops.warning_s=2"])
    env = rtarena.make("games/tilefall-var2-v0", **kwargs)
    assert (env.rules.drops.warning_s, env.rules.drops.pattern) == (2.0, "cluster")
    with pytest.raises(UserError, match=r"^tilefall.toml \[var2\]: unknown rule 'drops\.warn'"):
        arena_kwargs("games/tilefall-var2-v0", sets=["drops.warn=2"])
