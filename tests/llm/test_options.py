from __future__ import annotations

import pytest

from rtarena.agents.llm.options import LLMOptions, parse_llm_options
from rtarena.agents.specs import build_agent, parse_spec
from rtarena.errors import UserError


def test_full_grammar():
    o = parse_llm_options("scripted-heuristic@http://127.0.0.1:8000/v1,temperature=0.2,max_tokens=256,"
                          "image_size=128,modalities=text+rgb,history=30,fold=5,images=9,image_fold=3,"
                          "api_key_env=MY_KEY,timeout=2.5,retries=0,stream=false,price_in=1.5,price_out=6")
    assert o == LLMOptions(model="scripted-heuristic", base_url="http://127.0.0.1:8000/v1", temperature=0.2,
                           max_tokens=256, image_size=128, modalities=("text", "rgb"), history=30, fold=5,
                           images=9, image_fold=3, api_key_env="MY_KEY", timeout=2.5, retries=0, stream=False,
                           price_in=1.5, price_out=6.0)


def test_model_names_with_colons_and_slashes_and_no_url():
    assert parse_llm_options("llama3.1:8b@http://localhost:11434/v1").model == "llama3.1:8b"
    o = parse_llm_options("Qwen/Qwen3-8B")
    assert (o.model, o.base_url) == ("Qwen/Qwen3-8B", None)


def test_short_history_folds_all_of_itself_unless_told():
    assert parse_llm_options("m@http://h/v1,history=4").fold == 4
    assert parse_llm_options("m@http://h/v1,images=3").image_fold == 3


@pytest.mark.parametrize("text, fragment", [
    ("", "needs a model"),
    ("m@ftp://host", "base URL"),
    ("m@http://h/v1,temperature=hot", "temperature: must be a number"),
    ("m@http://h/v1,max_tokens=0", "max_tokens: must be > 0"),
    ("m@http://h/v1,modalities=text+smell", "modalities"),
    ("m@http://h/v1,colour=red", "unknown setting 'colour'"),
    ("m@http://h/v1,history=5,history=6", "given twice"),
    ("m@http://h/v1,history=5,fold=6", "fold (6) must not exceed history (5)"),
    ("m@http://h/v1,api_key_env=sk-123", "api_key_env"),
    ("m@http://h/v1,stream=maybe", "stream: must be true or false"),
    ("m@http://h/v1,timeout", "expected key=value"),
    ("m@http://h/v1,stream=yes", "stream: must be true or false, got 'yes'"),
    ("m@http://h/v1,timeout=nan", "timeout: must be a finite number, got nan"),
])
def test_mistakes_are_one_line_user_errors(text, fragment):
    with pytest.raises(UserError) as error:
        parse_llm_options(text)
    assert fragment in str(error.value) and "\n" not in str(error.value)


def test_specs_table_builds_llm_team_and_agentic_agents(tmp_path):
    skill = tmp_path / "skill.txt"
    skill.write_text("Strafe near turrets.")
    agent = build_agent(f"llm:m@http://127.0.0.1:9/v1,skill={skill}")
    assert agent.options.model == "m" and agent.skill == "Strafe near turrets." and agent.name.startswith("llm:")
    assert parse_spec("team:llm:m@http://127.0.0.1:9/v1").team
    assert type(build_agent("team:llm:m@http://127.0.0.1:9/v1")).__name__ == "TeamLLMAgent"
    assert build_agent("agentic:m@http://127.0.0.1:9/v1,rounds=2").options.rounds == 2
    with pytest.raises(UserError, match="team control needs a model spec"):
        build_agent("team:random")
    with pytest.raises(UserError, match="no such skill file"):
        build_agent("llm:m@http://127.0.0.1:9/v1,skill=/no/such/file")
    with pytest.raises(UserError, match="needs a model"):
        build_agent("llm")


def test_price_table_gives_a_cost_per_decision(tmp_path, server):
    from rtarena.agents.llm.client import ChatClient

    table = tmp_path / "prices.toml"
    table.write_text('"scripted-heuristic" = { input = 1.0, output = 1000.0 }\n')
    options = parse_llm_options(f"scripted-heuristic@{server.base_url},prices={table}")
    assert (options.price_in, options.price_out) == (1.0, 1000.0)
    done = ChatClient(options).complete([{"role": "user", "content": "hello there"}])
    assert done.cost_usd == pytest.approx((done.tokens_in * 1.0 + done.tokens_out * 1000.0) / 1e6)
    assert parse_llm_options(f"scripted-heuristic@{server.base_url},prices={table},price_out=2").price_out == 2.0
    with pytest.raises(UserError, match="no `input` and `output` prices for model 'other'"):
        parse_llm_options(f"other@{server.base_url},prices={table}")
    with pytest.raises(UserError, match="cannot read price table"):
        parse_llm_options(f"m@{server.base_url},prices={tmp_path / 'none.toml'}")
