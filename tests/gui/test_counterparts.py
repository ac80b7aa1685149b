"""The live counterparts that do more than tick: what each does on its own, with no agent input, read from the
page's own state and events (the registry-wide test only checks that the page changes)."""

from __future__ import annotations

import json
from itertools import pairwise


def idle(env, seed=0, seconds=40, read=None):
    """Step the page with `wait()` until it ends or `seconds` pass: the page events, `read()` after each step,
    and the final task state."""
    _, infos = env.reset(seed=seed)
    events, seen, task = list(infos["user"]["events"]), [], {}
    for _ in range(seconds):
        _, _, terms, truncs, infos = env.step({"user": "wait()"})
        events += infos["user"]["events"]
        task = infos["user"]["task"]
        if read:
            seen.append(read())
        if terms["user"] or truncs["user"]:
            break
    return events, seen, task


def test_auction_rivals_keep_bidding_until_the_close(gui_env):
    env = gui_env("web/auction-v0", obs=("time",))
    close = env.params["closes_at_s"]
    for seed in (0, 1, 2):
        events, _, task = idle(env, seed=seed)
        bids = [e for e in events if e["type"] == "bid"]
        assert {b["by"] for b in bids} == {"rival_77", "collector_12"}  # two rivals, both bidding
        assert len(bids) >= 5 and [b["amount"] for b in bids] == sorted(b["amount"] for b in bids)
        assert all(later["t"] - earlier["t"] >= 2.0 for earlier, later in pairwise(bids[1:]))  # a schedule
        assert bids[-1]["t"] > close / 2 and all(b["t"] <= close - 1.5 for b in bids)  # on until "going, going"
        assert task["done"] and not task["success"]


def test_mines_rival_sweeps_the_board_from_the_far_corner(gui_env):
    env = gui_env("gui-games/mines-v0", obs=("time",))
    events, _, task = idle(env, seconds=60)
    cells = [e["cell"] for e in events if e["type"] == "rival"]
    assert len(cells) == len(set(cells)) == 36  # one new cell every 1.5 s until it holds half of the 71
    assert sum(c // 9 + c % 9 for c in cells[:6]) > sum(c // 9 + c % 9 for c in cells[-6:])  # far corner first
    assert task["done"] and not task["success"] and "rival" in task["why"]


def test_maze_ghosts_hunt_a_player_who_stands_still(gui_env):
    env = gui_env("gui-games/maze-v0", obs=("time",))
    ghosts_now = "JSON.stringify(RT.inspect().ghosts.map((g) => [g.x, g.y]))"
    _, ghosts, task = idle(env, read=lambda: env.page_eval(ghosts_now))
    ghosts = [json.loads(g) for g in ghosts]
    assert all(a[0] != b[0] for a, b in pairwise(ghosts))  # the first ghost moves every second
    assert len({tuple(map(tuple, g)) for g in ghosts}) == len(ghosts)
    assert task["done"] and not task["success"] and "caught" in task["why"]


def test_tower_screen_rises_faster_and_faster(gui_env):
    env = gui_env("gui-games/tower-v0", obs=("time",))
    after = env.params["rise_after_s"]
    _, cams, task = idle(env, read=lambda: env.page_eval("RT.inspect().cam"))
    assert cams[: int(after) - 1] == [0.0] * (int(after) - 1)  # still at first ...
    climbs = [b - a for a, b in pairwise(cams[int(after):])]
    assert climbs and all(b > a > 0 for a, b in pairwise(climbs))  # ... then rising, faster every second
    assert task["done"] and not task["success"] and "bottom of the screen" in task["why"]
