"""The docs site: `mkdocs.yml` builds strictly and offline, a reader can open it, and a broken link fails it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
MKDOCS = [sys.executable, "-m", "mkdocs", "build", "--strict"]  # no --quiet: it hides what strict counts
QUIET = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def build(config: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*MKDOCS, "--config-file", str(config), "--site-dir", str(site)], cwd=config.parent,
                          env=QUIET, capture_output=True, text=True, timeout=300)


def test_site_builds_and_reads_in_chromium(tmp_path, open_html):
    done = build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr

    page, problems = open_html(tmp_path / "site" / "index.html")
    assert "rtarena" in page.title()
    nav = page.locator("nav.md-nav--primary a").all_text_contents()
    for title in ("Agents", "The game suite", "Findings", "Architecture", "Contract"):
        assert any(title in link for link in nav), nav
    # every page of docs/ is in the site, and the API reference is generated from the docstrings
    for doc in (ROOT / "docs").glob("*.md"):
        assert (tmp_path / "site" / doc.with_suffix(".html").name).is_file(), doc.name
    api, api_problems = open_html(tmp_path / "site" / "api" / "contract.html")
    headings = api.locator("h2, h3").all_inner_texts()
    assert any("rtarena.contract" in h for h in headings), headings
    assert any("Decision" in h for h in headings), headings
    # offline: nothing it loads comes from outside the site folder
    assert problems == [] and api_problems == []


def test_a_broken_link_fails_the_build(tmp_path):
    """The negative control: the project's own strictness settings on a one-page site with a dead link."""
    ours = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\nSee [the guide](guide.md).\n")
    config = {key: ours[key] for key in ("strict", "validation", "use_directory_urls")}
    config |= {"site_name": "control", "docs_dir": "docs", "theme": {"name": "mkdocs"}}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    done = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert "guide.md" in done.stdout + done.stderr
