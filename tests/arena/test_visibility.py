"""Field of view and line of sight decide what an observation contains; nothing hidden leaks."""

from __future__ import annotations

from tests.arena.helpers import arena, face, run

from rtarena.envs.arena.observations.state import block

WALL = (48, 48, 52, 49, 3.0, "wall")
CRATE = (49, 48, 51, 49, 0.9, "crate")


def _sees(env, viewer: int) -> tuple[str, int]:
    obs = env._observations([env.possible_agents[viewer]])[env.possible_agents[viewer]]
    players = block(obs["state"], "players")
    return obs["text"], int((players[:, 0] > 0).sum())


def test_an_opponent_in_front_is_seen():
    env, _ = arena("competitive", spawns=[(50, 40), (50, 60)])
    face(env, 0, (50, 60))
    run(env, 1)
    text, count = _sees(env, 0)
    assert count == 1 and "enemy p1" in text


def test_a_wall_hides_an_opponent_from_text_and_state():
    env, _ = arena("competitive", spawns=[(50, 40), (50, 60)], obstacles=[WALL])
    face(env, 0, (50, 60))
    run(env, 1)
    text, count = _sees(env, 0)
    assert count == 0 and "p1" not in text.split("In view:")[1].split("\n")[0]


def test_a_crate_hides_low_things_but_not_a_standing_head():
    env, _ = arena("competitive", spawns=[(50, 46), (50, 51)], obstacles=[CRATE], coins=[(50, 49.5)])
    face(env, 0, (50, 50))
    run(env, 1)
    text, count = _sees(env, 0)
    assert count == 1  # p1's head shows above the crate
    assert "coin" not in text.split("In view:")[1].split("\n")[0]  # the coin behind the crate does not


def test_things_behind_are_out_of_the_field_of_view():
    env, _ = arena("competitive", spawns=[(50, 40), (50, 60)], coins=[(50, 30)])
    face(env, 0, (50, 60))
    run(env, 1)
    text, _ = _sees(env, 0)
    assert "coin" not in text.split("In view:")[1].split("\n")[0]
    face(env, 0, (50, 20))
    run(env, 1)
    text, count = _sees(env, 0)
    assert "coin" in text and count == 0


def test_the_minimap_shows_coins_and_turrets_but_never_players():
    from tests.arena.helpers import action

    env, _ = arena("competitive", spawns=[(20, 20), (80, 80)], coins=[(30, 70)], turrets=[(70, 30)])
    run(env, 1, {"p0": action(minimap=1)})
    text, _ = _sees(env, 0)
    line = next(ln for ln in text.splitlines() if ln.startswith("Minimap"))
    assert "(30, 70)" in line and "(70, 30)" in line and "p1" not in line and "(80, 80)" not in line
    assert block(env._observations(["p0"])["p0"]["state"], "map_coins")[0, 0] == 1
    text1, _ = _sees(env, 1)
    assert "Minimap: closed." in text1
