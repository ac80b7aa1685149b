"""The review page, driven in Chromium: accept one code, change another, save, reload: the verdicts are
there, and saved beside the automatic annotations. Plus the page's safety rules over plain HTTP."""

from __future__ import annotations

import http.client
import json
from urllib.parse import quote

import pyarrow.parquet as pq
import pytest

from rtarena.annotate.commands import annotate_run
from rtarena.annotate.review import make_app
from rtarena.webapp import MAX_BODY_BYTES, TOKEN_HEADER


@pytest.fixture
def review(study):
    run = study[("stale", "PH")]
    annotate_run(run)
    (run / "annotations" / "review.parquet").unlink(missing_ok=True)
    app, session = make_app(run)
    with app:
        yield run, app, session


def test_accept_change_save_and_reload_in_chromium(review, new_page):
    run, server, _ = review
    rules_before = (run / "annotations" / "rules.parquet").read_bytes()
    page = new_page(bypass_csp=True)  # wait_for_function evaluates with eval, which the page's CSP forbids
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url)
    page.wait_for_selector(".code[data-code=missed_change]")
    assert page.locator(".frames img").count() >= 1  # the episode's frames are shown
    page.wait_for_function("() => { const i = document.querySelector('.frames img');"
                           " return i && i.complete && i.naturalWidth > 0; }")
    missed = page.locator(".code[data-code=missed_change]")
    missed.locator("input[value=accept]").check()
    repeated = page.locator(".code[data-code=repeated_no_effect]")
    repeated.locator("input[value=change]").check()
    repeated.locator("select").select_option("stale_target")
    page.click("#save")
    page.wait_for_selector("#status:has-text('saved 2 verdicts')")
    page.reload()
    page.wait_for_selector(".code[data-code=missed_change] .saved")
    assert page.locator(".code[data-code=missed_change] input[value=accept]").is_checked()
    again = page.locator(".code[data-code=repeated_no_effect]")
    assert again.locator("input[value=change]").is_checked()
    assert again.locator("select").input_value() == "stale_target"
    assert not errors
    rows = {r["original_code"]: r for r in pq.read_table(run / "annotations" / "review.parquet").to_pylist()}
    assert rows["missed_change"]["verdict"] == "accept" and rows["missed_change"]["code"] == "missed_change"
    assert rows["repeated_no_effect"]["verdict"] == "change" and rows["repeated_no_effect"]["code"] == "stale_target"
    changed = rows["repeated_no_effect"]
    assert changed["capability"] == "RT-Perceive" and changed["annotator"] == "review"
    assert (run / "annotations" / "rules.parquet").read_bytes() == rules_before  # beside, never over


def request(server, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
            token: str | None = None):
    headers = {**({TOKEN_HEADER: token} if token else {}), **(headers or {})}
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request(method, path, body=body, headers={"Host": f"127.0.0.1:{server.port}", **(headers or {})})
    reply = conn.getresponse()
    return reply.status, reply.read()


def test_the_page_needs_its_token_host_and_origin(review):
    _, server, _ = review
    token = server.token
    assert request(server, "GET", "/api/episodes", token=token)[0] == 200
    assert request(server, "GET", "/api/episodes", token="guess")[0] == 403
    assert request(server, "GET", "/api/episodes")[0] == 403
    assert request(server, "GET", "/", headers={"Host": "evil.example"})[0] == 403
    post = {"Content-Type": "application/json"}
    body = json.dumps({"verdicts": []}).encode()
    assert request(server, "POST", "/api/verdicts", body, post, token)[0] == 200
    assert request(server, "POST", "/api/verdicts", body, {**post, "Origin": "http://evil.example"}, token)[0] == 403
    assert request(server, "POST", "/api/verdicts", body, post, "guess")[0] == 403


def test_bodies_are_json_of_limited_size_and_checked(review):
    _, server, session = review
    post, token = {"Content-Type": "application/json"}, server.token
    assert request(server, "POST", "/api/verdicts", b"not json", post, token)[0] == 400
    assert request(server, "POST", "/api/verdicts", b"{}", {"Content-Type": "text/plain"}, token)[0] == 415
    # refused on its declared length, before a byte of it is read
    too_long = {**post, "Content-Length": str(MAX_BODY_BYTES + 1)}
    assert request(server, "POST", "/api/verdicts", b"{}", too_long, token)[0] == 413
    bad = {"verdicts": [{"episode": "nope", "controller": "user", "code": "missed_change", "verdict": "accept"}]}
    assert request(server, "POST", "/api/verdicts", json.dumps(bad).encode(), post, token)[0] == 400
    episode = next(iter(session.episodes))
    wrong = {"verdicts": [{"episode": episode[0], "controller": episode[1], "code": "missed_change",
                           "verdict": "change", "new_code": "made_up"}]}
    status, answer = request(server, "POST", "/api/verdicts", json.dumps(wrong).encode(), post, token)
    assert status == 400 and b"made_up" in answer
    # PH shows RT-Perceive and RT-Act: a deliberation code is not coded there, by the page either
    outside = {"verdicts": [{**wrong["verdicts"][0], "new_code": "overran_deadline"}]}
    status, answer = request(server, "POST", "/api/verdicts", json.dumps(outside).encode(), post, token)
    assert status == 400 and b"not coded under condition 'PH'" in answer
    assert "overran_deadline" not in session.payload()["episodes"][0]["allowed"]


def test_only_frames_the_run_lists_are_readable(review):
    run, server, session = review
    frame = next(iter(session.frames))
    status, data = request(server, "GET", f"/api/frame?path={quote(frame)}", token=server.token)
    assert status == 200 and data[:2] == b"\xff\xd8"  # a JPEG
    for path in ("episodes.jsonl", "../../../../etc/passwd", str(run / "episodes.jsonl"),
                 "annotations/rules.parquet", frame.replace("step", "../step")):
        assert request(server, "GET", f"/api/frame?path={quote(path)}", token=server.token)[0] == 404


def test_cli_review_serves_the_page(study):
    import re
    import subprocess
    import sys

    run = study[("stale", "PH")]
    proc = subprocess.Popen([sys.executable, "-m", "rtarena.cli", "annotate", str(run), "--review", "--no-open",
                             "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for line in proc.stdout:
            found = re.search(r"review page: http://127\.0\.0\.1:(\d+)/", line)
            if found:
                break
        port = int(found.group(1))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/", headers={"Host": f"127.0.0.1:{port}"})
        reply = conn.getresponse()
        page = reply.read().decode()
        assert reply.status == 200 and "Failure-mode review" in page and "__RTARENA_TOKEN__" not in page
    finally:
        proc.terminate()
        proc.wait(timeout=10)
