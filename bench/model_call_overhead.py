"""The client's own time per model call: rtarena's chat client against the OpenAI SDK's plain `create`, side by
side, on the same scripted server on loopback (`rtarena serve-policy`, which answers at once).

Under `wall` and `measured` (`latency=client`) whatever the client spends is charged to the model, so it
should be small next to a model's latency. Two histories: one short message, and a long text history (the
midline game's text view repeated as `turns` user/assistant pairs, as history retention keeps them). The
SDK's `create(messages=...)` runs its type-driven transform over every part of the history; rtarena's
client sends the messages as given (`agents/llm/client.py`). Printed: milliseconds per call, each path, and
the ratio SDK / rtarena.

    .venv/bin/python bench/model_call_overhead.py [--calls 100] [--turns 40]
"""

from __future__ import annotations

import argparse
import time

import openai

import rtarena
from rtarena.agents.llm.client import ChatClient
from rtarena.agents.llm.options import parse_llm_options
from rtarena.policy_server import PolicyServer


def history(turns: int) -> list[dict]:
    env = rtarena.make("games/midline-v0", obs=("text",))
    observation, _ = env.reset(seed=0)
    text = observation["p0"]["text"]
    env.close()
    messages = [{"role": "system", "content": "You play a game."}]
    for turn in range(turns):
        messages += [{"role": "user", "content": f"Turn {turn}. Observation:\n{text}"},
                     {"role": "assistant", "content": "ACTION: wait"}]
    return [*messages, {"role": "user", "content": f"Turn {turns}. Observation:\n{text}"}]


def per_call_ms(call, calls: int) -> float:
    call()  # the connection is set up once, outside the timing
    started = time.perf_counter()
    for _ in range(calls):
        call()
    return 1000 * (time.perf_counter() - started) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--turns", type=int, default=40, help="user/assistant pairs in the long history")
    args = parser.parse_args()
    with PolicyServer() as server:
        ours = ChatClient(parse_llm_options(f"scripted-heuristic@{server.base_url},stream=false"))
        sdk = openai.OpenAI(base_url=server.base_url, api_key="EMPTY", max_retries=0)
        print(f"{'history':<28} {'rtarena ms':>11} {'SDK create ms':>14} {'SDK / rtarena':>14}")
        for name, messages in (("one message", [{"role": "user", "content": "hi"}]),
                               (f"{args.turns} turns of midline text", history(args.turns))):
            rtarena_ms = per_call_ms(lambda m=messages: ours.complete(m), args.calls)
            sdk_ms = per_call_ms(lambda m=messages: sdk.chat.completions.create(model="m", messages=m), args.calls)
            print(f"{name:<28} {rtarena_ms:>11.2f} {sdk_ms:>14.2f} {sdk_ms / rtarena_ms:>13.1f}x")
        ours.close()
        sdk.close()


if __name__ == "__main__":
    main()
