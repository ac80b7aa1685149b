"""No value from a run folder reaches a page as markup (issue 46): HTML in every string and number field the
dashboard and the review page show (run and episode names, decisions, events, episodes, annotations) and in
a map's name in the editor is shown as text, no script runs, and the pages' Content-Security-Policy forbids
inline script. In Chromium, the session's one browser (`new_page`), without `bypass_csp`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.helpers import rtarena_cli

MARK = "<img src=x onerror=window.__xss=(window.__xss||0)+1><script>window.__xss=9</script>"
INJECTED = "document.querySelectorAll('img[src=x], [onerror], script:not([src]), svg script').length"


def poison(value):
    """The payload in place of every string and number (keys kept, so the files still parse)."""
    if isinstance(value, dict):
        return {k: poison(v) for k, v in value.items()}
    if isinstance(value, list):
        return [poison(v) for v in value]
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return MARK
    return value


def poison_table(path: Path, keep: tuple[str, ...] = (), **fixed: str) -> None:
    table = pq.read_table(path)
    columns = {name: (table[name] if name in keep else pa.array([fixed.get(name, MARK)] * table.num_rows,
                                                                pa.string()))
               for name in table.column_names}
    pq.write_table(pa.table(columns), path)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """A real run (cartpole, 5 steps, annotated), then copied under a name that is markup, its files poisoned."""
    base = tmp_path_factory.mktemp("inject")
    done = rtarena_cli("run", "classic/cartpole-v0", "--agent", "random", "--max-steps", "5", "--out",
                       str(base / "cart"), merged=True)
    assert done.returncode == 0, done.stdout
    done = rtarena_cli("annotate", str(base / "cart"), merged=True)
    assert done.returncode == 0, done.stdout
    root = base / "runs"
    run = root / MARK.replace("/", "")
    shutil.copytree(base / "cart", run)
    for kind in ("decisions", "events"):
        for file in (run / kind).glob("*.parquet"):
            poison_table(file, keep=("controller",) if kind == "decisions" else ())
    lines = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    keep = ("episode", "run_id", "controllers", "agent_specs", "slot_specs", "records_sha256", "worker")
    poisoned = [{k: (v if k in keep else poison(v)) for k, v in line.items()} for line in lines]
    (run / "episodes.jsonl").write_text("".join(json.dumps(line) + "\n" for line in poisoned))
    for file in (run / "annotations").glob("*.parquet"):
        poison_table(file, keep=("episode", "controller", "code", "original_code", "run_id"))
    return root


def assert_inert(page) -> None:
    assert page.evaluate("window.__xss || 0") == 0, "a script from the data ran"
    assert page.evaluate(INJECTED) == 0, "markup from the data became elements"


def test_the_detector_and_the_csp_catch_markup_that_reaches_a_page(root, new_page):
    """The control: markup put in with innerHTML is found, and the CSP stops its handler and inline script."""
    from rtarena.dashboard.server import make_app

    with make_app(root) as app:
        page = new_page()
        page.goto(app.url)
        page.wait_for_selector("#runs-table")
        page.evaluate("markup => { document.getElementById('view').innerHTML += markup; }", MARK)
        page.wait_for_timeout(200)
        assert page.evaluate(INJECTED) >= 1  # the detector sees it
        assert page.evaluate("window.__xss || 0") == 0  # and the CSP kept its handler from running


def test_the_dashboard_shows_a_poisoned_run_as_text(root, new_page):
    from urllib.parse import quote

    from rtarena.dashboard.server import make_app

    run = next(root.iterdir()).name
    episode = json.loads((root / run / "episodes.jsonl").read_text().splitlines()[0])["episode"]
    with make_app(root) as app:
        page = new_page()
        page.goto(app.url + "#/runs")
        page.wait_for_selector("#runs-table tbody tr")
        assert run in page.inner_text("#runs-table")
        assert_inert(page)
        for hash_, ready in ((f"#/run?run={quote(run)}", "#episodes-table tbody tr"),
                             (f"#/episode?run={quote(run)}&episode={quote(episode)}", "#timeline g.decision"),
                             (f"#/compare?runs={quote(run)}", "#compare-table, #page-error")):
            page.goto(app.url + hash_)
            page.wait_for_selector(ready, state="attached")  # bars at NaN positions are not "visible"
            assert_inert(page)
            if "episode=" in hash_:
                assert MARK in page.inner_text("#view")  # the env id and the events' types, as text
                page.locator("#timeline g.decision").first.dispatch_event("click")
                assert MARK in page.inner_text("#decision-detail")
                assert_inert(page)


def test_the_review_page_shows_poisoned_annotations_as_text(root, new_page, tmp_path):
    from rtarena.annotate.review import make_app

    run = tmp_path / "review"
    shutil.copytree(root.parent / "cart", run)  # the episodes as recorded: the review shows judged ones
    for file in (run / "annotations").glob("*.parquet"):  # a proposed code, with markup in all it shows
        poison_table(file, keep=("episode", "controller", "run_id", "env_id", "condition", "agent_label"),
                     code="missed_change", original_code="missed_change", quote_found="")
    app, _ = make_app(run)
    with app:
        page = new_page()
        page.goto(app.url)
        page.wait_for_selector(".episode")
        assert MARK in page.inner_text("#episodes")
        assert_inert(page)


def test_the_editor_shows_a_map_named_in_markup_as_text(tmp_path, new_page):
    from rtarena.editor.server import start_server

    name = MARK.replace("/", "") + ".toml"
    app, url = start_server(tmp_path / name, level="arena/basic-v0")
    try:
        page = new_page()
        page.goto(url)
        page.wait_for_selector("body[data-ready='1']")
        assert page.input_value("#path").endswith(name)
        assert_inert(page)
    finally:
        app.stop()
