"""docs/annotate.md lists every code of the codebook with its capability, and every parameter."""

from __future__ import annotations

from pathlib import Path

from rtarena.annotate.codebook import default_codebook

DOC = Path(__file__).parents[2] / "docs" / "annotate.md"


def test_docs_table_matches_the_codebook():
    text = DOC.read_text()
    book = default_codebook()
    for mode in book.modes:
        assert f"| `{mode.code}` | {mode.capability} |" in text
    for name in book.params:
        assert f"`{name}`" in text
