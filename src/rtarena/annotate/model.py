"""The model annotator: any OpenAI-compatible model reads the codebook and an episode's evidence (plus a
few of its frames) and returns codes, each with a quote from that evidence.

The evidence text has one line per fact, in a fixed form (the scripted annotator policy of the policy
server, `policy_server/annotator_text.py`, reads the same lines):

    episode ended at 2.50 s; outcome lost
    decision 0: obs 0.00 s, committed 5.12 s, applied never, delay 5.12 s, tokens_out 520, valid true, action "wait()"
    event at 0.75 s (step 3): failed_action click(4) no mark 4 on the page

The reply must hold a JSON object `{"codes": [{"code": "...", "evidence": "a quote"}]}`. Unknown codes
are dropped; a quote that does not occur in the evidence is kept but marked `quote_found = false`.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

from rtarena.annotate.codebook import Codebook
from rtarena.annotate.evidence import EpisodeEvidence
from rtarena.annotate.rules import Finding

ROLE = "You are a failure-mode annotator for real-time agent trajectories."
MAX_FRAMES = 3


def _num(value: Any) -> str:
    return "never" if value is None else f"{float(value):.2f} s"


def evidence_text(ev: EpisodeEvidence, failure_events: list[str]) -> str:
    outcome = "lost" if ev.lost(failure_events) else "won"
    lines = [f"episode ended at {ev.end_s:.2f} s; outcome {outcome}"]
    for d in ev.decisions:
        lines.append(f"decision {d['index']}: obs {_num(d['obs_sim_s'])}, committed {_num(d['committed_sim_s'])}, "
                     f"applied {_num(d.get('applied_sim_s'))}, delay {_num(d['delay_sim_s'])}, "
                     f"tokens_out {d['tokens_out']}, valid {str(bool(d.get('valid', True))).lower()}, "
                     f"action {json.dumps(str(d['action']))}")
    for e in ev.events:
        detail = " ".join(str(e[k]) for k in ("action", "error", "why") if e.get(k) not in (None, ""))
        lines.append(f"event at {_num(e.get('sim_s'))} (step {e.get('step')}): {e.get('type')} {detail}".rstrip())
    return "\n".join(lines)


def system_text(book: Codebook) -> str:
    parts = [ROLE, "Assign every failure mode of this codebook that the evidence supports; quote the evidence line.",
             ""]
    for m in book.modes:
        parts += [f"## {m.code} ({m.capability}): {m.name}", m.definition,
                  "Include: " + "; ".join(m.include), "Exclude: " + "; ".join(m.exclude), ""]
    parts.append('Reply with one JSON object: {"codes": [{"code": "CODE", "evidence": "a line quoted from the '
                 'evidence"}]} and nothing else; {"codes": []} when none applies.')
    return "\n".join(parts)


def frames(run_dir: Path, ev: EpisodeEvidence, limit: int = MAX_FRAMES) -> list[dict[str, Any]]:
    """Image parts for the episode's first, middle and last frames (screenshots kept with the run)."""
    pictures = [f for f in ev.files if f.lower().endswith((".jpg", ".jpeg", ".png")) and (Path(run_dir) / f).is_file()]
    if len(pictures) > limit:
        pictures = [pictures[round(i * (len(pictures) - 1) / (limit - 1))] for i in range(limit)]
    parts = []
    for name in pictures:
        data = (Path(run_dir) / name).read_bytes()
        kind = "png" if name.lower().endswith(".png") else "jpeg"
        parts.append({"type": "image_url", "image_url": {"url": f"data:image/{kind};base64,"
                                                               + base64.b64encode(data).decode()}})
    return parts


def messages_for(run_dir: Path, ev: EpisodeEvidence, book: Codebook, with_frames: bool) -> tuple[list[dict], str]:
    evidence = evidence_text(ev, book.params["failure_events"])
    text = f"Episode {ev.episode}, controller {ev.controller}, env {ev.env_id}, condition {ev.condition}.\n" \
           f"EVIDENCE:\n{evidence}"
    content: Any = text
    if with_frames:
        images = frames(run_dir, ev)
        if images:
            content = [{"type": "text", "text": text}, *images]
    return [{"role": "system", "content": system_text(book)}, {"role": "user", "content": content}], evidence


def parse_reply(text: str, evidence: str, book: Codebook) -> tuple[list[Finding], list[bool]]:
    """Codes from a model's reply (known codes only, each once) and whether each quote was found."""
    match = re.search(r"\{.*\}", text or "", re.S)
    try:
        data = json.loads(match.group(0)) if match else {}
    except json.JSONDecodeError:
        data = {}
    found, quoted, seen = [], [], set()
    for item in data.get("codes", []) if isinstance(data, dict) else []:
        code = item.get("code") if isinstance(item, dict) else None
        if code not in book.codes or code in seen:
            continue
        seen.add(code)
        quote = str(item.get("evidence", "")).strip()
        found.append(Finding(code, (), quote))
        quoted.append(bool(quote) and quote in evidence)
    return found, quoted


Judged = tuple[EpisodeEvidence, list[Finding], list[bool], str | None]


def annotate_with_model(run_dir: Path, episodes: list[EpisodeEvidence], spec: str, book: Codebook,
                        with_frames: bool = True) -> list[Judged]:
    """(episode, findings, quote found per finding, error) per episode; a failed call is recorded, not raised."""
    from rtarena.agents.llm.client import ChatClient
    from rtarena.agents.llm.options import parse_llm_options

    client = ChatClient(parse_llm_options(spec, kind="annotate --model"))
    out = []
    try:
        for ev in episodes:
            messages, evidence = messages_for(run_dir, ev, book, with_frames)
            reply = client.complete(messages)
            findings, quoted = parse_reply(reply.text, evidence, book) if reply.ok else ([], [])
            out.append((ev, findings, quoted, reply.error))
    finally:
        client.close()
    return out
