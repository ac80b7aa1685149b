"""Variant transfer: each variant of the game played with and without the best skill.

A variant is `NAME:KEY=VALUE[,KEY=VALUE...]` (`--variant`): keys with a dot are the level's game rules
(an arena level's `--set SECTION.KEY=VALUE`), `map` an arena map (`map=procedural:7:maze`, as `--map`),
other keys are keyword arguments of the env's constructor
(cart-pole: `length`, `masspole`, `force_mag`); values are JSON where they parse, text otherwise. Without
`--variant` the base env is the one variant, `base`. Transfer episodes use held-out seeds
(`seed_start + HOLDOUT_OFFSET + i`), never the seeds the rounds trained on.

transfer_v = mean(with) - mean(without), se = sqrt(se_with^2 + se_without^2), se = sd / sqrt(n) per
condition. Everything is recomputable from `transfer/episodes.jsonl` (labels `<variant>__with` / `__without`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from rtarena.errors import UserError

HOLDOUT_OFFSET = 10_000
CONDITIONS = ("with", "without")


@dataclass(frozen=True)
class Variant:
    name: str
    kwargs: dict[str, Any] = field(default_factory=dict)


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_variant(text: str, env_id: str) -> Variant:
    name, sep, rest = text.partition(":")
    if not sep or not name.strip() or not name.replace("-", "").replace("_", "").isalnum():
        raise UserError(f"expected NAME:KEY=VALUE[,KEY=VALUE...], got {text!r}", field="--variant")
    sets, kwargs, map_ = [], {}, None
    for pair in filter(None, rest.split(",")):
        key, eq, value = pair.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key:
            raise UserError(f"expected KEY=VALUE in {text!r}, got {pair!r}", field="--variant")
        if "." in key:
            sets.append(f"{key}={value}")
        elif key == "map":
            map_ = value
        else:
            kwargs[key] = _value(value)
    if sets or map_:
        from rtarena.eval.customize import arena_kwargs

        kwargs.update(arena_kwargs(env_id, map=map_, sets=sets))
    return Variant(name.strip(), kwargs)


def check_variant(env_id: str, variant: Variant) -> None:
    """Build the env once with the variant's kwargs, so a wrong key fails before any episode."""
    from rtarena.envs.registry import make

    try:
        make(env_id, **variant.kwargs).close()
    except UserError:
        raise
    except Exception as error:
        raise UserError(f"variant {variant.name!r} does not build {env_id}: {error}", field="--variant") from None


def label(variant: str, condition: str) -> str:
    return f"{variant}__{condition}"


def transfer_table(lines: list[dict[str, Any]], score_of: Any) -> list[dict[str, Any]]:
    """Per variant: both conditions' means and standard errors, the transfer and its standard error."""
    groups: dict[tuple[str, str], list[float]] = {}
    for line in lines:
        if line.get("status") != "ok" or "__" not in str(line.get("label", "")):
            continue
        variant, _, condition = str(line["label"]).rpartition("__")
        groups.setdefault((variant, condition), []).append(score_of(line))
    rows = []
    for variant in dict.fromkeys(v for v, _ in groups):
        stats = {c: _mean_se(groups.get((variant, c), [])) for c in CONDITIONS}
        (m1, s1, n1), (m0, s0, n0) = stats["with"], stats["without"]
        se = math.sqrt(s1 ** 2 + s0 ** 2) if s1 is not None and s0 is not None else None
        rows.append({"variant": variant, "with_mean": m1, "with_se": s1, "with_n": n1, "without_mean": m0,
                     "without_se": s0, "without_n": n0, "transfer": m1 - m0, "transfer_se": se})
    return rows


def _mean_se(values: list[float]) -> tuple[float, float | None, int]:
    n = len(values)
    if n == 0:
        return math.nan, None, 0
    mean = sum(values) / n
    if n == 1:
        return mean, None, 1
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, sd / math.sqrt(n), n
