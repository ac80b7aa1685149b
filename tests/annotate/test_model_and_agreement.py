"""The model annotator against the policy server's scripted annotator policy (not a model), Cohen's kappa,
and the `rtarena annotate` command."""

from __future__ import annotations

import json
import subprocess
import sys

import duckdb
import pyarrow.parquet as pq
import pytest

from rtarena.annotate.agreement import agreement, cohen_kappa
from rtarena.annotate.codebook import default_codebook
from rtarena.annotate.commands import annotate_run
from rtarena.annotate.model import evidence_text, messages_for, parse_reply

from .trajectories import decision, event, trajectory


def test_cohen_kappa_by_hand():
    # p_o = 3/4; p_a = 1/2, p_b = 1/4; p_e = 1/2 * 1/4 + 1/2 * 3/4 = 1/2; kappa = (3/4 - 1/2) / (1/2)
    assert cohen_kappa([True, True, False, False], [True, False, False, False]) == pytest.approx(0.5)
    assert cohen_kappa([True, False], [True, False]) == 1.0
    assert cohen_kappa([True, False], [False, True]) == pytest.approx(-1.0)
    with pytest.raises(ValueError):
        cohen_kappa([True], [])


def test_agreement_counts_absent_codes_as_no():
    row = lambda ep, code: {"episode": ep, "controller": "c", "code": code}  # noqa: E731
    a = [row("e1", "stale_target"), row("e2", "none")]
    b = [row("e1", "stale_target"), row("e2", "overran_deadline"), row("e3", "none")]
    out = agreement(a, b, ("stale_target", "overran_deadline"))
    assert out["episodes"] == 2  # e3 was judged by one annotator only
    assert out["per_code"]["stale_target"] == 1.0 and out["agreement"] == 0.75


def test_reply_parsing_keeps_known_codes_and_checks_quotes():
    book = default_codebook()
    ev = trajectory([decision(0, 0.0, 5.12, "wait()", end=2.5)], [event(9, "task_failure")], end_s=2.5)
    evidence = evidence_text(ev, book.params["failure_events"])
    line = evidence.splitlines()[1]
    reply = ("Thinking... " + json.dumps({"codes": [{"code": "overran_deadline", "evidence": line},
                                                    {"code": "made_up", "evidence": "x"},
                                                    {"code": "waited_too_long", "evidence": "not in there"}]}))
    found, quoted = parse_reply(reply, evidence, book)
    assert [f.code for f in found] == ["overran_deadline", "waited_too_long"] and quoted == [True, False]
    assert parse_reply("no json here", evidence, book) == ([], [])


def test_prompt_shows_the_codebook_evidence_and_frames(tmp_path):
    book = default_codebook()
    (tmp_path / "shots").mkdir()
    (tmp_path / "shots" / "a.jpg").write_bytes(b"\xff\xd8fake")
    ev = trajectory([decision(0, 0.0, 0.0, "click(1)")], [event(0, "failed_action", error="no mark 1")])
    ev.files = ("shots/a.jpg",)
    messages, evidence = messages_for(tmp_path, ev, book, with_frames=True)
    assert all(m.code in messages[0]["content"] for m in book.modes)
    parts = messages[1]["content"]
    assert evidence in parts[0]["text"] and parts[1]["text"] == "frame shots/a.jpg"
    assert parts[2]["image_url"]["url"].startswith("data:image/jpeg;base64,")
    assert "failed_action no mark 1" in evidence


def test_frames_before_and_after_the_last_decisions_and_the_condition_s_codebook():
    from rtarena.annotate.model import chosen_frames

    book = default_codebook()
    ev = trajectory([decision(0, 0.0, 0.0, "click(1)"), decision(1, 1.0, 1.4, "click(2)", end=9.0)],
                    condition="TH", end_s=2.5)
    pictures = [f"shots/step{k:04d}.jpg" for k in (0, 2, 4, 6, 9)]
    # decision 1 saw step 4 (1.0 s / 0.25 s) and was applied at step 6: the frames at 4 and after 6
    assert chosen_frames(ev, pictures) == [
        ("shots/step0000.jpg", "frame at step 0: before decision 0"),
        ("shots/step0002.jpg", "frame at step 2: after decision 0"),
        ("shots/step0004.jpg", "frame at step 4: before decision 1"),
        ("shots/step0009.jpg", "frame at step 9: after decision 1")]
    messages, _ = messages_for(None, ev, book, with_frames=False)
    assert "overran_deadline" in messages[0]["content"] and "stale_target" not in messages[0]["content"]
    reply = json.dumps({"codes": [{"code": "stale_target", "evidence": "x"}, {"code": "overran_deadline",
                                                                             "evidence": "y"}]})
    assert [f.code for f in parse_reply(reply, "", book.for_condition("TH"))[0]] == ["overran_deadline"]


def test_model_annotator_writes_rows_and_kappa(study, policy_server):
    run = study[("heuristic", "TH")]
    spec = f"scripted-annotator@{policy_server.url(policy='annotator')}"
    before = policy_server.requests
    summary = annotate_run(run, model=spec)
    # read at the policy server: the annotator's request holds the agent's reply and reasoning text
    (request,) = policy_server.bodies[-(policy_server.requests - before):]
    with duckdb.connect() as con:
        query = f"SELECT text FROM '{run}/decisions/*.parquet' WHERE text <> ''"
        replies = [t for (t,) in con.execute(query).fetchall()]
    user = request["messages"][1]["content"]
    user = user if isinstance(user, str) else user[0]["text"]
    assert replies and all(json.dumps(" ".join(t.split()))[1:60] in user for t in replies)
    assert "reasoning: \"think think" in user and "condition TH" in user
    assert "stale_target" not in request["messages"][0]["content"]  # TH's codebook: RT-Deliberate only
    rows = pq.read_table(summary["model"]).to_pylist()
    assert [(r["code"], r["capability"], r["quote_found"]) for r in rows] == [
        ("overran_deadline", "RT-Deliberate", True)]
    assert summary["agreement"]["kappa"] == 1.0  # both said overran_deadline and nothing else
    stale = annotate_run(study[("stale", "PH")], model=spec)
    model_codes = {r["code"] for r in pq.read_table(stale["model"]).to_pylist()}
    assert model_codes == {"missed_change"}  # the scripted annotator's one perception rule
    kappa = stale["agreement"]["kappa"]
    assert 0 < kappa < 1  # it misses repeated_no_effect, which the rules found
    saved = json.loads((study[("stale", "PH")] / "annotations" / "agreement.json").read_text())
    assert saved["kappa"] == kappa


def test_a_codebook_that_names_the_annotator_codes_with_the_model(study, policy_server, tmp_path):
    """The paper's annotator is a model: named in the codebook, `annotate` uses it without --model, and the
    report says the model coded the run (the rules alone are the named offline fallback)."""
    from rtarena.annotate.codebook import CODEBOOK
    from rtarena.eval.failure_modes import annotation_rows

    spec = f"scripted-annotator@{policy_server.url(policy='annotator')}"
    book = tmp_path / "book.toml"
    book.write_text(f'annotator = "{spec}"\n' + CODEBOOK.read_text(encoding="utf-8"), encoding="utf-8")
    run = study[("heuristic", "TH")]
    summary = annotate_run(run, codebook=book)
    assert summary["model"] and {r["code"] for r in pq.read_table(summary["model"]).to_pylist()} == {
        "overran_deadline"}
    assert annotation_rows([run])[1] == [f"{run.name}: the model annotator (the paper's)"]


def test_cli_prints_the_codes_and_rejects_a_folder_that_is_no_run(study, tmp_path):
    run = study[("stale", "PH")]
    cli = [sys.executable, "-m", "rtarena.cli", "annotate"]
    done = subprocess.run([*cli, str(run)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "missed_change" in done.stdout and "RT-Perceive" in done.stdout
    bad = subprocess.run([*cli, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "not a run folder" in bad.stdout and "Traceback" not in bad.stdout + bad.stderr
    assert not (tmp_path / "annotations").exists()
