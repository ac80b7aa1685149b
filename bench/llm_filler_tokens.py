"""Score vs thinking length: four `llm:` agents on `arena/coop-v0` against the scripted policy server.

    .venv/bin/python bench/llm_filler_tokens.py [--fillers 0,100,400,1600] [--seeds 2] [--sim-seconds 60]

The server answers like the arena heuristic (from the text report) after emitting N filler reasoning
tokens. Under `wall` it emits them at `--rate` tokens per second, so a decision takes N / rate seconds of
real, hence game, time; under `token` each decision is charged N / kappa seconds of game time (kappa set
equal to the rate, so both clocks charge a token the same); under `paused` thinking is free. Under the
paused and token clocks the server emits the filler unpaced: their game time does not depend on wall time,
so only the bench's own running time changes. Expected: the score falls with N under wall and token, and
not under paused. Prints mean ± standard error over seeds (score = coins collected by the team / placed).
"""

from __future__ import annotations

import argparse
import statistics
import time

from rtarena.agents.llm import LLMAgent
from rtarena.envs.registry import make
from rtarena.policy_server import PolicyServer
from rtarena.runtime import run_match


def mean_se(values: list[float]) -> str:
    mean = statistics.fmean(values)
    se = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
    return f"{mean:.3f} ± {se:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fillers", default="0,100,400,1600", help="filler reasoning tokens per decision")
    parser.add_argument("--clocks", default="paused,token,wall")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--sim-seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=200.0, help="wall: filler tokens per second; token: kappa")
    args = parser.parse_args()
    fillers = [int(v) for v in args.fillers.split(",")]
    clocks = args.clocks.split(",")
    dt = 0.25
    max_steps = round(args.sim_seconds / dt)
    rows: dict[tuple[str, int], dict[str, list[float]]] = {}
    with PolicyServer() as server:
        for clock in clocks:
            for filler in fillers:
                paced = clock == "wall"
                url = server.url(filler_tokens=filler, filler_rate=args.rate if paced else 0)
                cell = rows.setdefault((clock, filler), {"score": [], "latency": [], "delay": [], "wall": []})
                for seed in range(args.seeds):
                    env = make("arena/coop-v0", dt=dt)
                    agents = {a: LLMAgent(f"scripted-heuristic@{url},max_tokens={filler + 200},history=0,timeout=60")
                              for a in env.possible_agents}
                    started = time.perf_counter()
                    settings = {"kappa": args.rate} if clock == "token" else {}
                    result = run_match(env, agents, clock=clock, seed=seed, max_steps=max_steps, **settings)
                    for agent in agents.values():
                        agent.close()
                    first = result.agents[env.possible_agents[0]]
                    cell["score"].append(float(first["score"]))
                    cell["latency"].append(first["wall_latency_p50_s"] or 0.0)
                    cell["delay"].append(first["decision_delay_p50_s"] or 0.0)
                    cell["wall"].append(time.perf_counter() - started)
                    failed = sum(m["failed_decisions"] for m in result.agents.values())
                    assert failed == 0, f"{failed} failed decisions at {clock} filler={filler}"
                print(f"{clock:6s} filler={filler:5d}: score {mean_se(cell['score'])}", flush=True)
    print(f"\narena/coop-v0, 4 llm agents (scripted heuristic server), dt = {dt} s, {args.sim_seconds:g} s of game, "
          f"{args.seeds} seeds; wall filler rate = token kappa = {args.rate:g} tokens/s")
    print(f"{'clock':7s} {'filler tokens':>13s} {'score (mean ± se)':>18s} {'decision delay p50 (game s)':>28s} "
          f"{'model latency p50 (s)':>22s} {'run wall s':>10s}")
    for (clock, filler), cell in rows.items():
        print(f"{clock:7s} {filler:13d} {mean_se(cell['score']):>18s} {statistics.fmean(cell['delay']):28.3f} "
              f"{statistics.fmean(cell['latency']):22.3f} {statistics.fmean(cell['wall']):10.1f}")


if __name__ == "__main__":
    main()
