"""The token clock's deliberation cost: the same bidding decisions win with few tokens, lose with many."""

from __future__ import annotations

from tests.gui.helpers import FAST_OBS

import rtarena
from rtarena.agents.gui_oracle import GuiOracleAgent


def test_auction_window_missed_by_slow_thinker(gui_env):
    env = gui_env("web/auction-v0", obs=FAST_OBS)
    close_s = env.params["closes_at_s"]
    quick = rtarena.run_match(env, GuiOracleAgent(tokens_out=32), clock="token", kappa=64, seed=4)
    slow = rtarena.run_match(env, GuiOracleAgent(tokens_out=2048), clock="token", kappa=64, seed=4)
    assert quick.agents["user"]["success"] == 1.0
    assert slow.agents["user"]["success"] == 0.0
    # Both decided the same first action on the same first observation ...
    assert quick.decisions[0].action == slow.decisions[0].action
    assert "click(" in quick.decisions[0].action
    # ... but 2048 tokens at 64 tokens/s take 32 s of auction time: the bid lands after the close.
    assert slow.decisions[0].delay_sim_s == 32.0 > close_s
    assert slow.decisions[0].applied_sim_s is None
    assert not [e for e in slow.events if e["type"] == "bid" and e["by"] == "you"]
    assert [e for e in quick.events if e["type"] == "bid" and e["by"] == "you"]
