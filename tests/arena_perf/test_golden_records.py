"""Records of given seeds are byte-identical to the ones stored before the speed work of issue 19: a faster
arena that changes one decision, step, event or metric of these matches fails here."""

from __future__ import annotations

import json

import pytest
from tests.arena_perf.golden_records import FIXTURE, MATCHES, play

GOLDEN = json.loads(FIXTURE.read_text())


@pytest.mark.parametrize("name", [m[0] for m in MATCHES])
def test_records_match_the_ones_stored_before_the_speed_work(name):
    got = play(name)
    assert got["summary"] == GOLDEN[name]["summary"]
    assert got["events_sha256"] == GOLDEN[name]["events_sha256"]
    assert got["records_sha256"] == GOLDEN[name]["records_sha256"]
