"""The scripted annotator policy (`policy=annotator`): codes an episode from the evidence lines of
`rtarena annotate --model` (format in `annotate/model.py`), by two fixed rules. It is not a model.

- a decision committed after the episode ended (or never: still unanswered), in a lost episode ->
  `overran_deadline`;
- a `failed_action` event -> `missed_change` (it cannot tell a stale target from a missed change,
  which is one reason its codes differ from the rule-based annotator's and kappa is below 1).

Each code quotes the evidence line it rests on.
"""

from __future__ import annotations

import json
import re

END = re.compile(r"^episode ended at ([\d.]+) s; outcome (\w+)$", re.M)
DECISION = re.compile(r"^decision \d+: obs [\d.]+ s, committed (never|[\d.]+ s), .*$", re.M)
FAILED = re.compile(r"^event at .*: failed_action.*$", re.M)





def annotate(user: str) -> str:
    codes = []
    end = END.search(user)
    if end and end.group(2) == "lost":
        late = [m for m in DECISION.finditer(user)
                if m.group(1) == "never" or float(m.group(1)[:-2]) > float(end.group(1)) + 1e-9]
        if late:
            codes.append({"code": "overran_deadline", "evidence": late[0].group(0)})
    failed = FAILED.search(user)
    if failed:
        codes.append({"code": "missed_change", "evidence": failed.group(0)})
    return json.dumps({"codes": codes})
