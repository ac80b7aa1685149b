"""A real reader checks the screens: Tesseract OCR (Debian's `tesseract-ocr`, installed by `make test`) reads
every game and variant at the default frame size (one process over all frames), and must find on each frame
the HUD words (time, score) and at least one label the prompt's legend names. The same frames drawn at 96 px
(near the 128 px a model was given before) are read too, as the negative control: the reader must fail on
them, so the pass rule depends on the frames being legible, not on the reader being lenient.
"""

from __future__ import annotations

import re
import subprocess
from collections import defaultdict

import numpy as np
import pytest
from PIL import Image

from rtarena.envs.games.base import DEFAULT_SIZE
from rtarena.envs.registry import ENV_TABLE, make

GAME_IDS = [spec.id for spec in ENV_TABLE if spec.family == "games"]
SMALL = 96  # the control: frames drawn this small are not legible
CONTROLS = 8
# Sparse text (labels anywhere), a screen's resolution (PNGs carry none; Tesseract otherwise guesses from the
# texture), and local (Sauvola) thresholds in small windows: a global threshold splits a two-tone floor into
# black and white squares and the words on it are lost.
READER = ("--psm", "11", "--dpi", "150", "-c", "thresholding_method=2", "-c", "thresholding_window_size=0.2")


def frame(env_id: str, size: int) -> tuple[np.ndarray, set[str]]:
    """A frame after a few no-op steps of a seeded episode, and the labels its legend names."""
    env = make(env_id, obs=("rgb",), size=size)
    observations, _ = env.reset(seed=0)
    for _ in range(3):
        observations, *_ = env.step({a: env.action_space(a).action([]) for a in env.agents})
    labels = {look.label for look in env.looks().values() if look.label}
    return observations["p0"]["rgb"], labels


def words_by_frame(frames: list[np.ndarray], tmp_path) -> dict[int, set[str]]:
    """One Tesseract process over all frames (a list file: one page per frame); every word read (letters only,
    lower case), by frame."""
    paths = []
    for i, image in enumerate(frames):
        paths.append(tmp_path / f"frame-{i:03d}.png")
        Image.fromarray(image).save(paths[-1])
    (tmp_path / "frames.txt").write_text("\n".join(map(str, paths)) + "\n")
    done = subprocess.run(["tesseract", str(tmp_path / "frames.txt"), "-", *READER, "tsv"],
                          capture_output=True, text=True, env={"OMP_THREAD_LIMIT": "1", "PATH": "/usr/bin:/bin"},
                          check=True, timeout=300)
    out: dict[int, set[str]] = defaultdict(set)
    for line in done.stdout.splitlines()[1:]:
        cols = line.split("\t")
        if len(cols) >= 12 and cols[11].strip():
            out[int(cols[1]) - 1].update(re.findall(r"[a-z]+", cols[11].lower()))
    return out


def test_a_reader_finds_the_hud_and_a_legend_label_on_every_frame(tmp_path):
    shown = [frame(env_id, DEFAULT_SIZE) for env_id in GAME_IDS]
    controls = [frame(env_id, SMALL) for env_id in GAME_IDS[:CONTROLS]]
    read = words_by_frame([f for f, _ in shown] + [f for f, _ in controls], tmp_path)
    missing = []
    for i, (env_id, (_, labels)) in enumerate(zip(GAME_IDS, shown, strict=True)):
        words = read.get(i, set())
        wanted = {w for label in labels for w in re.findall(r"[a-z]+", label.lower())}
        lacks = [w for w in ("time", "score") if w not in words] + ([] if words & wanted else [f"a label of {labels}"])
        if lacks:
            missing.append(f"{env_id}: {', '.join(lacks)} (read: {' '.join(sorted(words))[:120]})")
    assert not missing, "the reader missed on: " + "; ".join(missing)
    legible = [GAME_IDS[i] for i in range(CONTROLS) if {"time", "score"} <= read.get(len(shown) + i, set())]
    assert not legible, f"the {SMALL} px control frames were read, so the rule proves nothing: {legible}"


def test_the_prompt_legend_is_written_from_the_drawables_table():
    """What a model agent is told it sees is the table the renderer draws from: every row, in words."""
    from types import SimpleNamespace

    from rtarena.agents.llm.prompts import domain_text
    from rtarena.runtime.documentation import env_docs

    for env_id in [spec.id for spec in ENV_TABLE if spec.family == "games" and "-var" not in spec.id]:
        env = make(env_id, obs=("rgb", "hud"))
        text = domain_text(SimpleNamespace(env_id=env_id, docs=env_docs(env, ["p0"])))  # the prompt's game text
        rows = env.looks().values()
        assert "What you see on the frame" in text, env_id
        assert all(look.meaning in text for look in rows), env_id
        assert all(f'labelled "{look.label}"' in text for look in rows if look.label), env_id


def test_a_bad_drawables_row_is_one_line_naming_the_field():
    from rtarena.envs.games.rules import DrawablesFile
    from rtarena.errors import UserError
    from rtarena.schema import validate

    row = {"shape": "gear", "color": [1, 2, 3], "label": "", "meaning": "a gear"}
    assert validate(DrawablesFile, {"drawables": {"gear": row}}).drawables["gear"].shape == "gear"
    for bad, field in (({"shape": "teapot"}, "shape"), ({"color": [1, 2, 300]}, "color")):
        with pytest.raises(UserError) as caught:
            validate(DrawablesFile, {"drawables": {"gear": {**row, **bad}}}, source="duel.toml")
        assert "\n" not in str(caught.value) and field in str(caught.value) and "duel.toml" in str(caught.value)
