"""A clock that waits for a silent model says so, and the default model timeout fits the clock."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor

from tests.helpers import clock_needs

from rtarena.agents.llm.client import ChatClient
from rtarena.agents.llm.options import parse_llm_options
from rtarena.runtime.clocks import CLOCKS, make_clock
from rtarena.runtime.scheduler import wait_reporting


def test_a_late_decision_prints_waiting_lines_until_it_arrives(caplog):
    release = threading.Event()
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(lambda: release.wait(30) and "answer")
        timer = threading.Timer(0.5, release.set)
        timer.start()
        with caplog.at_level(logging.WARNING, logger="rtarena.runtime"):
            assert wait_reporting(future, "p0", every_s=0.1) == "answer"
    lines = [r.getMessage() for r in caplog.records if r.name == "rtarena.runtime"]
    assert lines and all(line.startswith("still waiting for p0's decision after ") for line in lines)


def test_the_default_timeout_fits_the_clock_and_an_explicit_one_is_kept():
    free = ChatClient(parse_llm_options("m@http://127.0.0.1:9/v1"))
    free.fit_clock(make_clock("wall"), horizon_s=90.0)
    assert free.timeout_s == 90.0  # a reply may arrive until the episode ends, and still acts (issue 24)
    free.fit_clock(make_clock("paused"), horizon_s=90.0)
    assert free.timeout_s == 300.0  # turn-based: room for a high-effort reasoning reply (issue 17)
    set_ = ChatClient(parse_llm_options("m@http://127.0.0.1:9/v1,timeout=3"))
    for name in CLOCKS:
        set_.fit_clock(make_clock(name, **clock_needs(name)), horizon_s=90.0)
        assert set_.timeout_s == 3.0
