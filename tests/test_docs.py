"""The code examples of README.md and docs/*.md run, and print what the docs say they print.

Every ```python block of a page runs, in order, in one namespace per page (later blocks may use what earlier
ones defined). A plain ``` block right after a python block is its expected output: compared line by line
after the ports of 127.0.0.1 URLs are masked. The example map of docs/maps.md reads and validates.
"""

from __future__ import annotations

import contextlib
import io
import re
import tomllib
from pathlib import Path

import pytest

from rtarena.contract import AgentContext, Decision

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n(?:\n*^```\n(.*?)^```\n)?", re.M | re.S)


def examples(page: Path) -> list[tuple[str, str | None]]:
    """`(code, expected output or None)` for each python block of a page."""
    return [(m.group(2), m.group(3)) for m in FENCE.finditer(page.read_text(encoding="utf-8"))
            if m.group(1) == "python"]


def masked(text: str) -> str:
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text).strip()


@pytest.mark.parametrize("page", [p for p in PAGES if examples(p)], ids=lambda p: p.name)
def test_examples_run_and_print_what_the_page_says(page):
    namespace: dict = {"__name__": f"docs_{page.stem}", "AgentContext": AgentContext, "Decision": Decision}
    for code, expected in examples(page):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, str(page), "exec"), namespace)
        if expected is not None:
            assert masked(printed.getvalue()) == masked(expected), f"{page.name}: output differs for\n{code}"


def test_the_documented_map_reads_and_validates(tmp_path):
    from rtarena.envs.arena.maps import read_map_file, validate_map

    text = (ROOT / "docs" / "maps.md").read_text(encoding="utf-8")
    block = next(m.group(2) for m in FENCE.finditer(text) if m.group(1) == "toml" and "obstacles" in m.group(2))
    path = tmp_path / "example.toml"
    path.write_text(block)
    table = read_map_file(path)
    assert table == tomllib.loads(block)
    assert validate_map(table, str(path), players=2) == []
