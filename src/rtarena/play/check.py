"""`rtarena play ENV_ID --check`: could a person finish this in time? The oracle plays through the human path.

The family's privileged player (a browser task's own solution, a game's scripted player) decides as
usual, but its action does not reach the env directly: it becomes the key and click events a person
would make (`PRESS` per family: a game's keys go down and up and the mouse moves; a browser task's
`click(mark)` becomes a click at the mark's centre, `type(mark, text)` a click, Ctrl+A and one key per
character), written to the same input snapshot the play page writes to, and the family's human agent
(`agents.human.HUMAN_PATHS`) turns them back into the env's actions. Each decision takes a human-like
reaction delay of `REACTION_S` (250 ms) of simulated time, under the `paused` clock (the world moves on
while the "person" reacts, and the check is deterministic and runs faster than real time).

Success: a browser task's own `success`; a suite game's score at least `GAME_PASS_SCORE` (the fraction of
the game's goal a person is expected to reach; games have no pass/fail of their own). A multiplayer
game's other slots are played by the scripted player acting directly.
"""

from __future__ import annotations

import copy
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from rtarena.agents.human import GAME_KEYS, KeyboardSnapshot
from rtarena.contract import Agent, AgentContext, Decision
from rtarena.errors import UserError
from rtarena.play.session import HumanSession, human_family
from rtarena.runtime.clocks import make_clock

REACTION_S = 0.25  # a person's reaction time per decision (simulated seconds)
GAME_PASS_SCORE = 0.5
ORACLES = {"games": "heuristic", "web": "oracle", "gui-games": "oracle"}


def press_game(hand: OracleHand, action: Any, observation: Any) -> None:
    """A game action as a person's keys: keys newly held go down, keys let go come up, the mouse moves; a
    tap key (Space, F, E, mouse buttons) is pressed and let go, each time the action holds it."""
    from rtarena.envs.games.keys import TAP_KEYS

    names = hand.context.action_spaces[hand.context.agent].held(action)
    held = {GAME_KEYS[name][0] for name in names if name not in TAP_KEYS}
    for key in sorted(hand.held - held):
        hand.keyboard.release(key)
    for key in sorted(held - hand.held):
        hand.keyboard.press(key)
    hand.held = held
    for name in sorted(names & TAP_KEYS):
        hand.keyboard.press(GAME_KEYS[name][0])
        hand.keyboard.release(GAME_KEYS[name][0])
    dx, dy = np.asarray(action["mouse"], dtype=float).ravel()[:2]
    if dx or dy:
        hand.keyboard.move(dx, dy)


def press_gui(hand: OracleHand, action: Any, observation: Any) -> None:
    """GUI calls as a person's clicks and keys: a mark is clicked at its centre, text typed key by key."""
    import json

    from rtarena.envs.gui import actions as gui_actions

    try:
        calls = gui_actions.parse(str(action))
    except gui_actions.ActionError:
        return
    boxes = {m["id"]: m["box"] for m in json.loads(observation.get("marks") or "[]")}

    def centre(mark: int) -> str | None:
        box = boxes.get(mark)
        return None if box is None else f"click_xy({round(box[0] + box[2] / 2)}, {round(box[1] + box[3] / 2)})"

    for call in calls:
        events: list[str | None] = {
            "click": lambda c: [centre(c.args[0])],
            "type": lambda c: [centre(c.args[0]), "key('Control+A')",
                               *(f"key({('Space' if ch == ' ' else ch)!r})" for ch in c.args[1])],
            "wait": lambda c: [],
        }.get(call.name, lambda c: [str(c)])(call)
        for event in events:
            if event is not None:
                hand.keyboard.call(event)


PRESS: dict[str, Callable[[Any, Any, Any], None]] = {"games": press_game, "web": press_gui, "gui-games": press_gui}


def foresight(holder: dict[str, Any], agent: str) -> Callable[[list[Any]], Any]:
    """The privileged snapshot of a copy of the env (`holder["env"]`, which only this harness holds) stepped
    on by the keys already on their way (`agent`'s queued actions; the other players' default actions): the
    world a reaction from now, as a feed like the runtime's."""
    from rtarena.contract import PrivilegedFeed

    def ahead(queued: list[Any]) -> Any:
        env = holder["env"]
        future = copy.deepcopy(env)
        for action in queued:
            if agent not in future.agents:
                break
            future.step({a: action if a == agent else future.default_action(a) for a in future.agents})
        return PrivilegedFeed({agent: copy.deepcopy(future.privileged_state(agent))})

    return ahead


class OracleHand(Agent):
    """The oracle's decisions as a person's input events, read back by the family's human agent.

    `lag_s` > 0 is a reaction pipeline (a game): the oracle decides every step on what it sees, and its
    keys go down `lag_s` later, as a person tracking a moving scene presses keys a reaction time after
    seeing it. With 0 (a browser task) the runtime's `delay_s` makes each decision take the reaction time,
    and the oracle plans for it."""

    privileged = True

    def __init__(self, keyboard: KeyboardSnapshot, person: Agent, oracle: Agent, family: str,
                 lag_s: float = 0.0, foresee: Callable[[list[Any]], Any] | None = None) -> None:
        self.keyboard, self.person, self.oracle, self.press = keyboard, person, oracle, PRESS[family]
        self.lag_s, self.foresee = float(lag_s), foresee
        self.held: set[str] = set()
        self.queue: deque[tuple[float, Any, Any]] = deque()
        self.t = 0.0

    def reset(self, context: AgentContext) -> None:
        super().reset(context)
        self.oracle.reset(context)
        self.person.reset(context)
        self.held, self.t = set(), 0.0
        self.queue.clear()

    def act(self, observation: Any) -> Decision:
        if not self.keyboard.pending_calls():  # a long text still being typed: the oracle waits for it
            if self.foresee is not None:  # it decides on the world as it will be when its keys land
                ahead = self.foresee([action for _, action, _ in self.queue])
                self.oracle.context = replace(self.oracle.context, privileged=ahead)
            self.queue.append((self.t + self.lag_s, self.oracle.act(observation).action, observation))
        while self.queue and self.queue[0][0] <= self.t + 1e-9:
            _, action, seen = self.queue.popleft()
            self.press(self, action, seen)
        self.t += self.context.dt
        return self.person.act(observation)

    def close(self) -> None:
        self.oracle.close()


def check_env(env_id: str, seed: int = 0, dt: float | None = None, out: Path | None = None) -> dict[str, Any]:
    """Play one env with its oracle through the human path; returns its success and score."""
    from rtarena.agents.specs import build_agent

    family = human_family(env_id)
    if family not in ORACLES:
        raise UserError(f"--check has an oracle for {', '.join(ORACLES)}, not {env_id!r} ({family})", field="--check")
    oracle = ORACLES[family]

    pipeline = family == "games"  # a game's keys track a moving scene; a browser task's clicks are decisions
    holder: dict[str, Any] = {}

    def hand(keyboard: KeyboardSnapshot, person: Agent, agent_id: str) -> Agent:
        return OracleHand(keyboard, person, build_agent(oracle, family), family, REACTION_S if pipeline else 0.0,
                          foresight(holder, agent_id) if pipeline else None)

    session = HumanSession.build(env_id, device=f"check-{oracle}", dt=dt, seed=seed, hand=hand)
    holder["env"] = session.watched.env
    session.clock = make_clock("paused", delay_s=0.0 if pipeline else REACTION_S)
    started = time.perf_counter()
    try:
        result = session.play()
        line = session.record(result, out)
    finally:
        session.close()
    if family != "games":
        metrics = line["agents"][session.watched.possible_agents[0]]
        success, score = bool(metrics.get("success")), float(metrics.get("progress", metrics["return"]))
    else:  # every slot is a person: the best of them (a PvP game's winner; a team's shared score)
        score = max(float(m.get("score", 0.0)) for m in line["agents"].values())
        success = score >= GAME_PASS_SCORE - 1e-9
    return {"env_id": env_id, "success": success, "score": round(score, 3), "sim_s": line.get("sim_seconds"),
            "wall_s": round(time.perf_counter() - started, 2)}


def check_envs(pattern: str, seed: int = 0, dt: float | None = None, out: Path | None = None,
               echo: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """`check_env` over every registered env the pattern names (`web/*`, `games/*-v0`), in registry order."""
    from rtarena.eval.experiment_file import registered_matches

    rows = []
    for env_id in registered_matches(pattern, "ENV_ID", "ENV_ID"):
        if "-var" in env_id and pattern != env_id:  # a pattern means the base envs; name a variant to check it
            continue
        rows.append(check_env(env_id, seed, dt, out))
        echo(f"{env_id}: {'ok' if rows[-1]['success'] else 'FAILED'} (score {rows[-1]['score']})")
    return rows
