"""Agreement between two annotators: Cohen's kappa over every (episode, controller, code) judgement.

Each annotator either assigns a code to an episode-controller or not; both tables list every episode
they judged (code `none` when nothing was found), so absent codes are real "no" answers. Only the
episodes both judged are compared. kappa = (p_o - p_e) / (1 - p_e); where p_e is 1 (both said the same
single answer everywhere) kappa is defined as 1 when they agree everywhere.
"""

from __future__ import annotations

from typing import Any


def cohen_kappa(a: list[bool], b: list[bool]) -> float:
    """Cohen's kappa of two equally long lists of yes/no judgements."""
    if len(a) != len(b) or not a:
        raise ValueError("kappa needs two non-empty lists of the same length")
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    pa, pb = sum(a) / n, sum(b) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    if expected >= 1.0:
        return 1.0 if observed >= 1.0 else 0.0
    return (observed - expected) / (1 - expected)


def judgements(rows: list[dict[str, Any]]) -> dict[tuple[str, str], set[str]]:
    out: dict[tuple[str, str], set[str]] = {}
    for row in rows:
        codes = out.setdefault((row["episode"], row["controller"]), set())
        if row["code"] != "none":
            codes.add(row["code"])
    return out


def agreement(rows_a: list[dict[str, Any]], rows_b: list[dict[str, Any]], codes: tuple[str, ...]) -> dict[str, Any]:
    """kappa over all codes, and per code, on the episodes both annotators judged."""
    ja, jb = judgements(rows_a), judgements(rows_b)
    keys = sorted(set(ja) & set(jb))
    if not keys:
        return {"episodes": 0, "kappa": None, "per_code": {}}
    a = [code in ja[k] for k in keys for code in codes]
    b = [code in jb[k] for k in keys for code in codes]
    per_code = {code: cohen_kappa([code in ja[k] for k in keys], [code in jb[k] for k in keys]) for code in codes}
    return {"episodes": len(keys), "kappa": cohen_kappa(a, b), "per_code": per_code,
            "agreement": sum(x == y for x, y in zip(a, b, strict=True)) / len(a)}
