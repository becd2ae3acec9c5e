"""Agent specs name a server's kind at any address, and the structured output asked (issue 25)."""

from __future__ import annotations

from typing import Any

import pytest

from tradeleague.agents.llm import LlmAgent
from tradeleague.agents.spec import (
    AGENT_OPTION_HELP,
    build_agent,
    endpoint_for,
    output_of,
    parse_agent_spec,
)
from tradeleague.errors import ConfigError
from tradeleague.llm.replay import RecordedAnswers, ReplayGateway


def test_a_preset_at_any_address() -> None:
    """``@PRESET=URL``: the preset's dialect and default output at that URL, under its own
    provider name; a URL with ``=`` in its query stays a URL."""
    spec = parse_agent_spec("q=openai:qwen@llamacpp=http://127.0.0.1:18310/v1/")
    assert (spec.name, spec.target, spec.base_url, spec.preset) == (
        "q",
        "qwen",
        "http://127.0.0.1:18310/v1",
        "llamacpp",
    )
    endpoint = endpoint_for(spec)
    assert (endpoint.name, endpoint.base_url, endpoint.dialect, endpoint.key_env) == (
        "llamacpp@127.0.0.1:18310/v1",
        "http://127.0.0.1:18310/v1",
        "llamacpp",
        None,
    )
    assert endpoint.reasoning_off == {"chat_template_kwargs": {"enable_thinking": False}}
    assert output_of(spec) == "json_schema"
    plain = parse_agent_spec("openai:m@http://127.0.0.1:9/v1?x=1")
    assert (plain.base_url, plain.preset) == ("http://127.0.0.1:9/v1?x=1", None)
    with pytest.raises(ConfigError, match="unknown preset 'nope' before '='; presets: "):
        parse_agent_spec("openai:m@nope=http://127.0.0.1:9/v1")


@pytest.mark.parametrize(
    ("text", "output"),
    [
        ("openai:m", "json_schema"),
        ("openai:m@openrouter", "json_schema"),
        ("openai:m@ollama", "json_schema"),
        ("openai:m@http://127.0.0.1:9/v1", "text"),
        ("openai:m@http://127.0.0.1:9/v1,output=json_schema", "json_schema"),
        ("openai:m@vllm=http://10.0.0.2:8000/v1,output=grammar", "grammar"),
        ("local:house", "grammar"),
        ("local:house,output=text", "text"),
    ],
)
def test_output_defaults_to_the_presets(text: str, output: str) -> None:
    """A preset's default output (json_schema for each built-in one), text for any other URL,
    grammar for the house model; ``output=`` wins."""
    assert output_of(parse_agent_spec(text)) == output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("openai:m@openai,output=xml", "unknown output 'xml'; valid outputs: json_schema, "),
        ("openai:m@openai,output=grammar", "openai endpoint cannot be sent output=grammar"),
        ("openai:m@http://h/v1,output=grammar", "valid: json_schema, json_object, text"),
        ("local:house,output=json_schema", "house model cannot be sent output=json_schema"),
    ],
)
def test_an_output_the_endpoint_cannot_send_is_refused_at_start(text: str, message: str) -> None:
    """A wrong output is a ConfigError at start that lists the valid ones."""
    with pytest.raises(ConfigError, match=message):
        parse_agent_spec(text)


def test_the_output_reaches_the_agent() -> None:
    """``text`` leaves the turn's schema off the request; any other output sends it."""
    gateway = ReplayGateway(RecordedAnswers([]))

    def built(text: str) -> Any:
        agent = build_agent(
            parse_agent_spec(text),
            gateway=gateway,
            format_name="weights",
            baseline_factory=lambda name: (None, None),  # type: ignore[arg-type,return-value]
        )
        assert isinstance(agent, LlmAgent)
        return agent.constrain, agent.output

    assert built("openai:m@http://h/v1") == (False, "json_schema")
    assert built("openai:m@http://h/v1,output=json_object") == (True, "json_object")
    assert built("openai:m@llamacpp=http://h/v1,output=grammar") == (True, "grammar")
    assert built("local:house") == (True, "grammar")
    assert built("local:house,output=text")[0] is False


def test_the_help_teaches_the_new_syntax() -> None:
    """The shared ``--agent`` help shows a preset at an address and the output option."""
    for words in ("llamacpp=http://", "output=json_schema|json_object|grammar|text", "key_env"):
        assert words in AGENT_OPTION_HELP
