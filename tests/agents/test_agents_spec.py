"""Agent specs on the command line: parsed, checked and built (C-2, T-AGT-1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tradeleague.agents.baseline_agent import BaselineAgent
from tradeleague.agents.llm import LlmAgent
from tradeleague.agents.scripted import ScriptedAgent
from tradeleague.agents.spec import (
    AGENT_OPTION_HELP,
    REPLAY_ANSWERS_HELP,
    AgentSpec,
    EnvKey,
    KeyNotSet,
    build_agent,
    endpoint_for,
    parse_agent_spec,
    providers_for,
)
from tradeleague.errors import ConfigError
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway


def _baselines(name: str) -> tuple[Any, Any]:
    if name != "cash":
        raise ConfigError(f"unknown baseline {name!r}; valid: cash")
    return (lambda view: {}), (lambda d: json.dumps({"weights": d}))


def test_spec_parses_every_kind() -> None:
    """Each kind, with and without NAME=, and the group labels."""
    assert parse_agent_spec("baseline:cash") == AgentSpec(
        name="cash", kind="baseline", target="cash"
    )
    assert parse_agent_spec("s=scripted:dir/a.jsonl").target == "dir/a.jsonl"
    assert parse_agent_spec("scripted:dir/answers.jsonl").name == "answers"
    spec = parse_agent_spec(
        "gpt=openai:openai/gpt-4o-mini@https://openrouter.ai/api/v1/,provider=OpenAI,tier=ECO"
    )
    assert (spec.name, spec.kind, spec.target) == ("gpt", "openai", "openai/gpt-4o-mini")
    assert spec.base_url == "https://openrouter.ai/api/v1"
    assert spec.labels == {"provider": "OpenAI", "tier": "ECO"}
    assert spec.options == (("provider", "OpenAI"), ("tier", "ECO"))
    custom = parse_agent_spec("openai:m@http://127.0.0.1:9/v1?x=1,key_env=MY_KEY")
    assert (custom.name, custom.base_url, custom.key_env) == (
        "m",
        "http://127.0.0.1:9/v1?x=1",
        "MY_KEY",
    )
    assert parse_agent_spec("openai:qwen3@ollama").base_url == "http://127.0.0.1:11434/v1"
    assert parse_agent_spec("openai:gpt-4o").base_url == "https://api.openai.com/v1"
    assert parse_agent_spec("house=local:smollm2").kind == "local"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("robot:x", "unknown kind 'robot'; valid kinds: baseline, scripted, openai, local"),
        ("cash", "unknown kind"),
        ("baseline:", "needs a target"),
        ("baseline:cash,key_env=X", "unknown option 'key_env' for baseline:; valid options: "),
        (
            "openai:m@ollama,color=red",
            "valid options: cutoff, cutoff_source, key_env, output, provider, tier",
        ),
        ("openai:m@ollama,tier", "must be KEY=VALUE"),
        ("openai:m@ollama,tier=A,tier=B", "given twice"),
        ("openai:m@ftp://x", "neither an http(s) base URL nor a preset"),
        ("openai:@ollama", "needs MODEL"),
        ("my name=baseline:cash", "agent name 'my name'"),
    ],
)
def test_spec_errors_list_what_is_valid(text: str, message: str) -> None:
    """A bad spec is a ConfigError that says what would be valid."""
    with pytest.raises(ConfigError) as caught:
        parse_agent_spec(text)
    assert message in str(caught.value)


def test_spec_endpoints_use_presets() -> None:
    """A base URL that is a preset's uses the preset; any other is custom, with no key."""
    assert endpoint_for(parse_agent_spec("openai:m@https://openrouter.ai/api/v1")).name == (
        "openrouter"
    )
    for name in ("openai", "ollama", "vllm", "llamacpp"):
        assert endpoint_for(parse_agent_spec(f"openai:m@{name}")).name == name
    custom = endpoint_for(parse_agent_spec("openai:m@http://127.0.0.1:8089/v1"))
    assert custom.name == "custom@127.0.0.1:8089/v1"
    assert custom.key_env is None
    specs = [parse_agent_spec(s) for s in ("a=openai:m@vllm", "b=openai:n@vllm", "baseline:cash")]
    assert [p.name for p in providers_for(specs)] == ["vllm"]
    with pytest.raises(ConfigError, match="not an openai one"):
        endpoint_for(parse_agent_spec("baseline:cash"))


def test_spec_env_key_is_read_at_call_time() -> None:
    """C-9: the key stays in the environment until the call; missing is an error value."""
    environ: dict[str, str] = {}
    key = EnvKey("MY_KEY", environ)
    with pytest.raises(KeyNotSet, match="MY_KEY"):
        key()
    environ["MY_KEY"] = " sk-x "
    assert key() == "sk-x"
    assert "sk-x" not in repr(key)


async def test_spec_builds_agents(tmp_path: Path) -> None:
    """Every kind builds the matching agent; a live gateway must hold its provider."""
    script = tmp_path / "a.jsonl"
    script.write_text('{"text": "hi"}\n', encoding="utf-8")
    replay = ReplayGateway(RecordedAnswers([]))

    def build(text: str, gateway: Any = replay) -> Any:
        return build_agent(
            parse_agent_spec(text),
            gateway=gateway,
            format_name="weights",
            baseline_factory=_baselines,
            environ={"K": "v"},
        )

    base = build("baseline:cash,tier=BASE")
    assert isinstance(base, BaselineAgent)
    assert base.labels == {"tier": "BASE"}
    scripted = build(f"s=scripted:{script},provider=me")
    assert isinstance(scripted, ScriptedAgent)
    assert scripted.labels == {"provider": "me"}
    llm = build("g=openai:m@openrouter,key_env=K")
    assert isinstance(llm, LlmAgent)
    assert (llm.provider, llm.model, llm.kind, llm.constrain) == ("openrouter", "m", "llm", True)
    assert llm.output == "json_schema"  # the preset's default
    assert llm.api_key == EnvKey("K")
    assert build("openai:m@ollama").api_key is None
    house = build("local:smollm2")
    assert (house.provider, house.kind, house.constrain) == ("local", "local", True)
    with pytest.raises(ConfigError, match=r"format 'weights'.*unknown baseline 'nope'"):
        build("baseline:nope")
    with pytest.raises(ConfigError, match="cannot read script"):
        build("scripted:missing.jsonl")
    async with Gateway(providers_for([parse_agent_spec("openai:m@vllm")])) as live:
        assert isinstance(build("openai:m@vllm", live), LlmAgent)
        with pytest.raises(ConfigError, match="unknown provider 'local'; known: vllm"):
            build("local:smollm2", live)


def test_spec_help_texts_name_every_kind() -> None:
    """The shared CLI help names each kind and option."""
    for word in ("NAME=SPEC", "baseline:", "scripted:", "openai:", "local:", "key_env", "tier"):
        assert word in AGENT_OPTION_HELP
    assert "recorded" in REPLAY_ANSWERS_HELP
    assert "identical" in REPLAY_ANSWERS_HELP


def test_local_specs_share_one_house_model_provider() -> None:
    """W-DIV-1: every house-model agent runs on the same model, registered as ``local``."""
    specs = [parse_agent_spec(t) for t in ("a=local:house", "b=local:house", "c=openai:m@vllm")]
    names = sorted(p.name for p in providers_for(specs))
    assert names == ["local", "vllm"]
    two = [parse_agent_spec(t) for t in ("a=local:house", "b=local:/models/other.gguf")]
    with pytest.raises(ConfigError, match="one house model"):
        providers_for(two)
