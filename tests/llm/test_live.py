"""`live:` agents hold one Realtime session per episode with the scripted policy server (not a model), and the
server speaks the protocol to the official SDK's own client."""

from __future__ import annotations

import subprocess
import sys
from itertools import pairwise

import duckdb
import pytest

from rtarena.agents.llm import LLMAgent
from rtarena.agents.llm.live import LiveAgent
from rtarena.envs.registry import make
from rtarena.policy_server import PolicyServer
from rtarena.runtime import run_match


def test_the_official_sdk_completes_a_session_with_the_policy_server():
    import openai

    with PolicyServer() as server:
        client = openai.OpenAI(base_url=server.url(filler_tokens=5), api_key="unused")
        with client.realtime.connect(model="scripted-heuristic") as connection:
            created = connection.recv()
            connection.session.update(session={"type": "realtime", "instructions": "Answer with Discrete(2).",
                                               "output_modalities": ["text"]})
            connection.conversation.item.create(item={"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "state: [0.1, 0.2, 0.3, 0.4]"}]})
            connection.response.create()
            seen = []
            for event in connection:
                seen.append(event.type)
                if event.type == "response.done":
                    done = event.response
                    break
    assert created.type == "session.created" and created.session.model == "scripted-heuristic"
    assert "session.updated" in seen and "conversation.item.added" in seen
    assert seen.index("response.output_text.delta") < seen.index("response.done")
    assert done.status == "completed" and "ACTION: 1" in done.output[0].content[0].text  # the balancer's push
    assert done.usage.output_tokens > 5 and done.usage.input_tokens > 0  # the 5 filler tokens are in the count
    (session,) = server.sessions
    assert session.responses == 1 and session.items_added == 1


def test_a_live_session_plays_like_the_request_agent_and_keeps_its_history_bounded():
    """Same prompt, same scripted answers: the live agent's decisions equal the `llm:` agent's, one session per
    episode, and the retained history (3 turns, folded 3 at a time) bounds what the session holds."""
    env = make("classic/cartpole-v0")
    options = "history=3,max_tokens=200"
    with PolicyServer() as server:
        url = server.url(filler_tokens=10)  # thinking: in `<think>` over Realtime, in reasoning_content over chat
        live, request = LiveAgent(f"m@{url},{options}"), LLMAgent(f"m@{url},{options}")
        runs = [run_match(env, agent, clock="token", kappa=500.0, seed=seed, max_steps=30)
                for seed in (0, 1) for agent in (live, request)]
        live.close(), request.close()
    for by_live, by_request in (runs[0:2], runs[2:4]):
        assert len(by_live.decisions) == len(by_request.decisions) >= 6
        for a, b in zip(by_live.decisions, by_request.decisions, strict=True):
            assert (a.obs_version, a.action, a.tokens_in, a.tokens_out) == (b.obs_version, b.action, b.tokens_in,
                                                                           b.tokens_out)
            assert a.valid and a.tokens_source == "server" and a.extra["ttft_s"] > 0
        versions = [d.obs_version for d in by_live.decisions]
        assert any(b - a > 1 for a, b in pairwise(versions))  # frames published while it thought: skipped
        assert any(d.extra["cached_tokens"] > 0 for d in by_live.decisions)  # the session's prefix held
    assert [s.responses for s in server.sessions] == [len(runs[0].decisions), len(runs[2].decisions)]
    for session in server.sessions:
        assert session.items_deleted > 0  # the history folded: the client deleted the folded turns
        assert session.most_items <= 2 * 3 + 2 + 2  # 3 turns, the ledger and its answer, the frame, the reply


@pytest.mark.parametrize("fault, kind", [({"fault": "http_500", "fault_every": 3}, "error_event"),
                                         ({"fault": "garbage_event", "fault_every": 3}, "bad_event"),
                                         ({"fault": "no_done", "fault_every": 3}, "no_done")])
def test_a_session_fault_is_recorded_by_kind_and_the_episode_goes_on(fault, kind):
    env = make("classic/cartpole-v0")
    with PolicyServer() as server:
        agent = LiveAgent(f"m@{server.url(**fault)},timeout=5")
        result = run_match(env, agent, clock="paused", seed=0, max_steps=7)
        agent.close()
    assert len(result.steps) == 7
    failed = [d for d in result.decisions if d.error]
    assert [d.obs_version for d in failed] == [2, 5] and all(d.error.startswith(kind + ":") for d in failed)
    assert all(d.valid for d in result.decisions if not d.error)  # after each, a rebuilt session answers
    assert result.agents["agent_0"]["failures"] == {kind: 2}
    assert len(server.sessions) == 3  # the session is rebuilt after each fault


def test_a_dropped_socket_reconnects_within_the_decision_and_the_episode_completes():
    env = make("classic/cartpole-v0")
    with PolicyServer() as server:
        agent = LiveAgent(f"m@{server.url(fault='cut', fault_every=4)},timeout=5,retries=1")
        result = run_match(env, agent, clock="paused", seed=0, max_steps=8)
        agent.close()
    assert len(result.steps) == 8 and all(d.valid for d in result.decisions)
    dropped = [d for d in result.decisions if d.extra.get("failed_attempts")]
    assert [d.extra["failed_attempts"] for d in dropped] == [["connection"], ["connection"]]
    assert all(d.extra["attempts"] == 2 for d in dropped)
    # one session per episode, plus one rebuilt from the retained history after each drop
    assert len(server.sessions) == 3 and server.sessions[1].items_added >= 5


def test_rtarena_run_a_browser_task_with_a_live_agent_one_session_per_episode(tmp_path):
    """`rtarena run web/quiz-v0 --agent live:M@URL --clock token`: decisions charged from the sessions' usage;
    the server counts the connect check and one session per episode."""
    out = tmp_path / "run"
    with PolicyServer() as server:
        done = subprocess.run([sys.executable, "-m", "rtarena.cli", "run", "web/quiz-v0", "--agent",
                               f"live:scripted-heuristic@{server.base_url}", "--clock", "token", "--seeds", "2",
                               "--max-steps", "3", "--out", str(out)], capture_output=True, text=True, timeout=300)
        sessions = server.sessions
    assert done.returncode == 0, done.stderr
    with duckdb.connect() as con:  # a connection of its own: the module's default one is shared by the process
        rows = con.sql(f"select episode, tokens_in, tokens_out, tokens_source, valid "
                       f"from '{out}/decisions/*.parquet' order by episode, index").fetchall()
    assert len(rows) == 6 and all(source == "server" and valid for _, _, _, source, valid in rows)
    check, *episodes = sessions
    assert check.responses == 0 and [s.responses for s in episodes] == [3, 3]  # the connect check, then 1 per episode
    for session in episodes:
        assert session.items_added == 3 and session.most_items == 6  # a user item a decision (screenshot + marks)
        assert session.model == "scripted-heuristic"
    per_episode = [[(t_in, t_out) for e, t_in, t_out, *_ in rows if e == name] for name in sorted({r[0] for r in rows})]
    for decisions in per_episode:
        assert decisions[0][0] < decisions[1][0] < decisions[2][0]  # the session's conversation grows
        assert all(t_out > 0 for _, t_out in decisions)


def test_a_server_that_does_not_speak_the_protocol_is_one_line_before_any_episode():
    from rtarena.agents.specs import check_connections
    from rtarena.errors import UserError

    with PolicyServer() as server, pytest.raises(UserError) as caught:
        check_connections([f"live:m@http://{server.host}:{server.port}/not-v1"])  # no Realtime route there: 404
    line = str(caught.value)
    assert "does not speak the Realtime protocol (HTTP 404)" in line and "\n" not in line
    assert server.sessions == []


def test_the_session_follows_the_history_through_image_and_text_folds():
    """Each response reads exactly the prompt the request agent would send (the server's input tokens are the
    prompt's, images 85 each), while folds replace screenshots by placeholders and turns by the ledger."""
    import numpy as np

    from rtarena.agents.llm.history import History
    from rtarena.agents.llm.media import image_part
    from rtarena.agents.llm.model_agent import assistant_memory
    from rtarena.agents.llm.options import parse_llm_options
    from rtarena.agents.llm.realtime import RealtimeClient
    from rtarena.agents.llm.tokens import count_messages

    history = History(max_turns=4, fold=2, max_images=2, image_fold=1)
    with PolicyServer() as server:
        client = RealtimeClient(parse_llm_options(f"m@{server.base_url}", "live"))
        client.start()
        for turn in range(1, 9):
            user = [{"type": "text", "text": f"Turn {turn}. state: [0, 0, 0, {turn}]"},
                    image_part(np.full((4, 4, 3), turn, np.uint8), size=4)]
            messages = history.messages("Answer with Discrete(2).", user)
            completion = client.complete(messages)
            assert completion.ok and completion.tokens_source == "server"
            assert completion.tokens_in == count_messages(messages), turn
            history.record(turn, user, assistant_memory(completion.text, True), "0")
            history.applied(turn)
        client.close()
    assert history.text_folds and history.image_folds  # both kinds of fold happened
    (session,) = server.sessions
    assert session.responses == 8 and session.items_deleted > 0 and session.errors == []
    assert session.most_items <= 2 * 4 + 2 + 2  # 4 turns, the ledger and its answer, the frame, the reply
