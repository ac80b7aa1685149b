"""The `rtarena` command line. Each command is a thin shell over a module; user mistakes print one line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from rtarena.errors import UserError

app = typer.Typer(add_completion=False, no_args_is_help=True, help="rtarena: agents that must act in real time.")
console = Console()


@app.command("list")
def list_envs() -> None:
    """List the registered envs and the agent kinds."""
    from rtarena.agents.specs import AGENT_KINDS
    from rtarena.envs.registry import ENV_TABLE

    table = Table("env id", "agents", "summary", title="envs")
    for spec in ENV_TABLE:
        table.add_row(spec.id, "1" if spec.single_agent else "many", spec.summary)
    console.print(table)
    kinds = Table("agent spec", "summary", title="agents (--agent)")
    for kind in AGENT_KINDS:
        kinds.add_row(kind.name, kind.summary)
    console.print(kinds)


@app.command()
def run(
    env_id: Annotated[str, typer.Argument(help="a registered env id (see `rtarena list`)")],
    agent: Annotated[
        list[str] | None, typer.Option("--agent", help="agent spec; once for every slot, or once per slot")
    ] = None,
    clock: Annotated[str, typer.Option(help="wall | paused | token | measured")] = "token",
    dt: Annotated[float | None, typer.Option(help="simulated seconds per env step")] = None,
    kappa: Annotated[float | None, typer.Option(help="token clock: tokens per simulated second")] = None,
    overhead: Annotated[float | None, typer.Option(help="token clock: fixed seconds per decision")] = None,
    delay_ms: Annotated[float, typer.Option("--delay-ms", help="injected delay per decision, ms")] = 0.0,
    obs_every: Annotated[int, typer.Option("--obs-every", help="publish an observation every K steps")] = 1,
    max_steps: Annotated[int, typer.Option("--max-steps", help="step limit per episode")] = 500,
    seeds: Annotated[int, typer.Option(help="number of episodes, seeds 0..N-1")] = 1,
    seed_start: Annotated[int, typer.Option("--seed-start", help="first seed")] = 0,
    out: Annotated[Path, typer.Option(help="output folder")] = Path("runs/latest"),
) -> None:
    """Run episodes of one env and write DIR/episodes.jsonl and Parquet decision records."""
    from rtarena.envs.adapters import check_dt
    from rtarena.envs.registry import env_spec
    from rtarena.eval.episodes import EpisodeJob, run_episode

    env_spec(env_id)
    env_kwargs = {"dt": check_dt(dt)} if dt is not None else {}
    settings = {"kappa": kappa, "overhead": overhead, "delay_s": delay_ms / 1000.0, "obs_every": obs_every}
    from rtarena.runtime.clocks import make_clock

    make_clock(clock, **dict(settings))  # validate once, before any episode runs
    specs = tuple(agent or ["random"])
    table = Table("seed", "steps", "sim s", "wall s", "decisions", "return (per agent)")
    for seed in range(seed_start, seed_start + seeds):
        job = EpisodeJob(env_id, specs, clock, seed, max_steps, settings, env_kwargs)
        line = run_episode(job, out)
        returns = ", ".join(f"{a}={m['return']:.2f}" for a, m in line["agents"].items())
        table.add_row(str(seed), str(line["steps"]), f"{line['sim_seconds']:.2f}", f"{line['wall_seconds']:.2f}",
                      str(line["decisions"]), returns)
    console.print(table)
    console.print(f"episodes: {out / 'episodes.jsonl'}  decisions: {out / 'decisions'}")


@app.command()
def demo(out: Annotated[Path, typer.Option(help="output folder")] = Path("demo-out")) -> None:
    """The offline demo: no API key, scripted agents, every clock."""
    from rtarena.demo import run_demo

    run_demo(out, console)


@app.command("serve-policy")
def serve_policy(
    port: Annotated[int, typer.Option(help="port on 127.0.0.1 (0: any free port)")] = 8000,
    policy: Annotated[str, typer.Option(help="heuristic | random (scripted, not a model)")] = "heuristic",
    filler_tokens: Annotated[int, typer.Option("--filler-tokens", help="reasoning tokens before each answer")] = 0,
    filler_rate: Annotated[float, typer.Option("--filler-rate", help="filler tokens per second (0: unpaced)")] = 0.0,
    ttft_ms: Annotated[float, typer.Option("--ttft-ms", help="time to first token, ms")] = 0.0,
    fault: Annotated[str, typer.Option(help="none | garbage | empty | cut | http_500 | http_429 | slow")] = "none",
    setting: Annotated[
        list[str] | None, typer.Option("--set", help="any other server setting, KEY=VALUE (repeatable)")
    ] = None,
) -> None:
    """Serve an OpenAI-compatible chat API on 127.0.0.1 that answers with a scripted policy."""
    from rtarena.policy_server.server import serve

    serve(port, policy=policy, filler_tokens=filler_tokens, filler_rate=filler_rate, ttft_s=ttft_ms / 1000.0,
          fault=fault, overrides=",".join(setting or []), echo=console.print)


def main() -> None:
    try:
        app(standalone_mode=False)
    except UserError as error:
        console.print(f"[red]error:[/red] {error}", highlight=False)
        sys.exit(2)
    except typer.Exit as done:
        sys.exit(done.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        console.print("aborted")
        sys.exit(130)
    except Exception as error:  # click usage errors arrive here in non-standalone mode
        import click

        if isinstance(error, click.ClickException):
            error.show()
            sys.exit(error.exit_code)
        raise


if __name__ == "__main__":
    main()
