"""The documentation site (`make docs`): MkDocs builds it strictly and offline, and it opens in Chromium with
the pages, the gallery and the API reference; a broken link fails the build."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def mkdocs(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


def test_the_site_builds_strictly_and_opens_in_chromium(tmp_path, new_page):
    site = tmp_path / "site"
    done = mkdocs("--site-dir", str(site), cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    page = new_page()
    page.goto((site / "index.html").as_uri())
    assert "real time" in page.inner_text("article")
    page.goto((site / "api" / "webapp" / "index.html").as_uri())
    assert "Guard" in page.inner_text("article")  # the reference is generated from the docstrings
    page.goto((site / "gallery" / "index.html").as_uri())
    assert page.locator("article img").count() >= 10
    assert page.evaluate("[...document.images].every(i => i.complete && i.naturalWidth > 0)")


def test_a_broken_link_fails_the_build(tmp_path):
    """The control: the same strict build of a one-page site whose link points nowhere (no `-q`: quiet
    drops the warnings that strict mode counts)."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# x\n\nSee [the missing page](missing.md).\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: x\nstrict: true\n")
    done = mkdocs(cwd=tmp_path)
    assert done.returncode != 0 and "missing.md" in done.stdout + done.stderr
