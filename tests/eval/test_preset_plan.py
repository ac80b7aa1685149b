"""`rtarena presets NAME`: what a preset would run, one row per cell, nothing run; and the env-id patterns and
`extends` of experiment files that the study presets are written with."""

from __future__ import annotations

import sys

import pytest
from tests.helpers import rtarena_cli

from rtarena import cli
from rtarena.errors import UserError
from rtarena.eval import presets
from rtarena.eval.experiment_file import load_experiment, parse_experiment


def test_presets_tl_lists_its_50_cells_with_the_screenshot(tmp_path):
    done = rtarena_cli("presets", "TL", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith(("│ web/", "│ gui-games/"))]
    assert len(rows) == 50 and sum("│ web/" in r for r in rows) == 30
    assert all("som+marks" in r and "TL: token" in r and "0-4" in r for r in rows)
    assert "50 cells x 5 seeds = 250 episodes" in done.stdout
    assert not list(tmp_path.iterdir())  # nothing ran, nothing was written


def test_plan_resolves_clock_defaults_and_views():
    experiment, cells = presets.preset_plan("modality-ablation")
    assert len(cells) == 2 * 2 * 5 and experiment.seeds == tuple(range(20))
    by = {(c.env_id, c.clock.split(":")[0], c.modalities) for c in cells}
    assert ("arena/basic-v0", "realtime-250ms", ("rgb+depth+text",)) in by  # `{obs}` filled per cell
    assert all("dt=0.25" in c.clock for c in cells)


def test_unknown_preset_and_unregistered_task_are_one_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "bad.toml").write_text('envs = ["web/nosuch-v0"]\nagents = ["random"]\n')
    monkeypatch.setattr(presets, "FOLDER", tmp_path)
    for name, words in (("bad", "envs[0].id"), ("nosuch", "unknown preset 'nosuch'")):
        monkeypatch.setattr(sys, "argv", ["rtarena", "presets", name])
        with pytest.raises(SystemExit) as done:
            cli.main()
        out = capsys.readouterr().out
        assert done.value.code == 2 and words in out and len(out.strip().splitlines()) == 1, out


def test_patterns_expand_over_the_registry_and_extends_merges_params(tmp_path):
    data = {"envs": ["gui-games/s*"], "agents": ["random"]}
    ids = [e.id for e in parse_experiment(data).envs]
    assert ids == ["gui-games/simon-v0", "gui-games/snake-v0"]
    with pytest.raises(UserError, match=r"envs\[0\]\.id: the pattern 'nothing/\*' matches no registered env"):
        parse_experiment({"envs": ["nothing/*"], "agents": ["random"]}, strict=False)
    (tmp_path / "base.toml").write_text('name = "base"\nseeds = 3\nparams = { a = "1", b = "2" }\n'
                                        'envs = ["classic/cartpole-v0"]\nagents = ["random"]\n')
    (tmp_path / "child.toml").write_text('extends = "base.toml"\nparams = { b = "3" }\n')
    child = load_experiment(tmp_path / "child.toml")
    assert child.name == "child" and child.seeds == (0, 1, 2) and child.params == {"a": "1", "b": "3"}
    (tmp_path / "loop.toml").write_text('extends = "loop.toml"\n')
    with pytest.raises(UserError, match="extends itself"):
        load_experiment(tmp_path / "loop.toml")
