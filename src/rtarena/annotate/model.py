"""The model annotator: any OpenAI-compatible model reads the codebook and an episode's evidence (plus the
frames before and after its last decisions) and returns codes, each with a quote from that evidence.

As in the paper's procedure, the annotator sees the codebook of the episode's condition only
(`Codebook.for_condition`: RT-Deliberate under TL and TH, RT-Perceive and RT-Act under PH, none under WH),
and reads each decision's timing, its reasoning and reply text, and the observations (screenshots) before and after it.
The evidence text has one line per fact, in a fixed form (the scripted annotator policy of the policy
server, `policy_server/annotator_text.py`, reads the same lines):

    episode ended at 2.50 s; outcome lost
    decision 0: obs 0.00 s, committed 5.12 s, applied never, delay 5.12 s, tokens_out 520, valid true, action "wait()"
    decision 0 reasoning: "the bid closes in 3 s ..."
    decision 0 reply: "ACTION: wait()"
    event at 0.75 s (step 3): failed_action click(4) no mark 4 on the page

Reasoning and reply texts are quoted up to `TEXT_CHARS` characters each (head and tail around a marker).

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
MAX_FRAMES = 6  # screenshots per episode: before and after its last decisions, then the last frame
FRAMED_DECISIONS = 2  # the last applied decisions whose observations before and after are shown
TEXT_CHARS = 600  # of each decision's reasoning and reply text quoted in the evidence
STEP = re.compile(r"step(\d+)\.(?:jpe?g|png)$", re.I)  # the browser tasks' screenshot names


def _num(value: Any) -> str:
    return "never" if value is None else f"{float(value):.2f} s"


def _quoted(text: Any) -> str | None:
    text = " ".join(str(text or "").split())
    if not text:
        return None
    if len(text) > TEXT_CHARS:
        half = TEXT_CHARS // 2
        text = f"{text[:half]} [...] {text[-half:]}"
    return json.dumps(text, ensure_ascii=False)


def _reasoning(d: dict[str, Any]) -> Any:
    extra = d.get("extra")
    if isinstance(extra, str):
        try:
            extra = json.loads(extra)
        except json.JSONDecodeError:
            extra = None
    return (extra or {}).get("reasoning") if isinstance(extra, dict) else None


def evidence_text(ev: EpisodeEvidence, failure_events: list[str]) -> str:
    outcome = "lost" if ev.lost(failure_events) else "won"
    lines = [f"episode ended at {ev.end_s:.2f} s; outcome {outcome}"]
    for d in ev.decisions:
        lines.append(f"decision {d['index']}: obs {_num(d['obs_sim_s'])}, committed {_num(d['committed_sim_s'])}, "
                     f"applied {_num(d.get('applied_sim_s'))}, delay {_num(d['delay_sim_s'])}, "
                     f"tokens_out {d['tokens_out']}, valid {str(bool(d.get('valid', True))).lower()}, "
                     f"action {json.dumps(str(d['action']))}")
        for what, text in (("reasoning", _reasoning(d)), ("reply", d.get("text"))):
            quoted = _quoted(text)
            if quoted:
                lines.append(f"decision {d['index']} {what}: {quoted}")
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


def chosen_frames(ev: EpisodeEvidence, pictures: list[str], limit: int = MAX_FRAMES) -> list[tuple[str, str]]:
    """(file, caption) of the frames to show: for the last `FRAMED_DECISIONS` applied decisions the latest
    frame at or before their observation and the first after their applied step, then the episode's last
    frame; where frames carry no step number (or the steps have no time), the first, middle and last."""
    steps = {f: int(m.group(1)) for f in pictures if (m := STEP.search(f))}
    if len(steps) < len(pictures) or not ev.dt:
        picked = pictures if len(pictures) <= 3 else [pictures[0], pictures[len(pictures) // 2], pictures[-1]]
        return [(f, f"frame {f}") for f in picked]
    ordered = sorted(pictures, key=steps.__getitem__)
    out: dict[str, str] = {}
    for d in ev.applied()[-FRAMED_DECISIONS:]:
        obs_step = round(float(d["obs_sim_s"]) / ev.dt)
        before = [f for f in ordered if steps[f] <= obs_step]
        after = [f for f in ordered if steps[f] > int(d["applied_step"])]
        if before:
            out.setdefault(before[-1], f"frame at step {steps[before[-1]]}: before decision {d['index']}")
        if after:
            out.setdefault(after[0], f"frame at step {steps[after[0]]}: after decision {d['index']}")
    if ordered:
        out.setdefault(ordered[-1], f"frame at step {steps[ordered[-1]]}: the episode's last")
    return list(out.items())[:limit]


def frames(run_dir: Path, ev: EpisodeEvidence, limit: int = MAX_FRAMES) -> list[dict[str, Any]]:
    """Caption and image parts for the frames `chosen_frames` picks (screenshots kept with the run)."""
    pictures = [f for f in ev.files if f.lower().endswith((".jpg", ".jpeg", ".png")) and (Path(run_dir) / f).is_file()]
    parts: list[dict[str, Any]] = []
    for name, caption in chosen_frames(ev, pictures, limit):
        data = (Path(run_dir) / name).read_bytes()
        kind = "png" if name.lower().endswith(".png") else "jpeg"
        parts += [{"type": "text", "text": caption},
                  {"type": "image_url", "image_url": {"url": f"data:image/{kind};base64,"
                                                             + base64.b64encode(data).decode()}}]
    return parts


def messages_for(run_dir: Path, ev: EpisodeEvidence, book: Codebook, with_frames: bool) -> tuple[list[dict], str]:
    """The request for one episode: the codebook of its condition, its evidence lines and frames."""
    book = book.for_condition(ev.condition)
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
            # a code outside the episode's condition is dropped like an unknown one
            findings, quoted = (parse_reply(reply.text, evidence, book.for_condition(ev.condition)) if reply.ok
                                else ([], []))
            out.append((ev, findings, quoted, reply.error))
    finally:
        client.close()
    return out
