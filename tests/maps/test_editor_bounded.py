"""The editor checks a map off its session's lock, and answers within `VALIDATE_S` (issue 46: a 505 KB map
once held the one lock for 11.9 s)."""

from __future__ import annotations

import pytest

from rtarena.editor import server as editor
from rtarena.webapp import Request, RequestError


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    return editor.EditorSession(tmp_path_factory.mktemp("ed") / "m.toml", level="arena/basic-v0")


def big_map(n: int) -> dict:
    return {"size_m": 1000.0, "obstacles": [[i % 900, i // 900 * 2, i % 900 + 0.5, i // 900 * 2 + 1, 2.0, "wall"]
                                            for i in range(n)], "spawns": [[999, 999], [998, 998]], "coins": []}


def test_a_map_is_checked_off_the_sessions_lock(session, monkeypatch):
    seen = []
    check = session.validate
    monkeypatch.setattr(session, "validate", lambda table: seen.append(session.lock.locked()) or check(table))
    routes = editor.routes(session)
    answer = routes[("POST", "/api/validate")](Request("POST", "/api/validate", {}, {"map": big_map(10)}))
    assert isinstance(answer["problems"], list) and seen == [False]


def test_a_check_past_its_time_is_refused_and_the_control_answers(session, monkeypatch):
    routes = editor.routes(session)
    request = Request("POST", "/api/validate", {}, {"map": big_map(2000)})
    assert isinstance(routes[("POST", "/api/validate")](request)["problems"], list)  # within VALIDATE_S
    monkeypatch.setattr(editor, "VALIDATE_S", 0.001)
    with pytest.raises(RequestError) as refused:
        routes[("POST", "/api/validate")](request)
    assert refused.value.status == 503 and "longer than" in str(refused.value)
