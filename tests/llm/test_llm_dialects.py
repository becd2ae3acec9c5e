"""Structured output in each provider's dialect (issue 25): accepted where spoken, named where not.

Each fake plays one kind of server (``FakeProvider(dialect=...)``): it takes
structured output only in that kind's fields and answers any other with that
server's own error. An agent built from its spec sends the round's answer
schema in the endpoint's dialect; the fake answers with a value that follows
the schema it received (as a server enforcing it would), and the weights
league's validator, the one every answer goes through (C-6), takes it. A
dialect the server does not speak is a ``provider_error`` whose error class is
``output_unsupported``, with the provider's message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from tradeleague.agents.base import Turn
from tradeleague.agents.spec import build_agent, parse_agent_spec, providers_for
from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.formats.weights import Decision, WeightsPreset, answer_schema, validate_answer
from tradeleague.league.answers import error_class
from tradeleague.llm.dialects import output_fields, strict_schema
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.grammar import schema_to_gbnf
from tradeleague.llm.records import CallKey, CallRecord
from tradeleague.testing.fake_dialects import dialect_refusal, received_schema, schema_instance
from tradeleague.testing.fake_provider import FakeProvider, ReceivedRequest

SYMBOLS = ("AAPL", "MSFT", "SPY")
SCHEMA = answer_schema(SYMBOLS)
PARAMS = CallParams(temperature=0.3, max_tokens=200, timeout_s=20.0)
TURN = Turn(
    format="weights",
    key=CallKey("s", "r1", "a", 0),
    messages=(Message("user", "Answer with one JSON object: targets and a reason."),),
    params=PARAMS,
    json_schema=SCHEMA,
)


def _no_baselines(name: str) -> Any:
    raise AssertionError(f"no baseline here: {name}")


def _follows_the_schema(request: ReceivedRequest) -> str:
    """Answer as a server enforcing what it received would: a value of the schema sent,
    or, for a grammar or JSON mode (no schema on the wire), of the round's schema."""
    schema = received_schema(request.body)
    if "grammar" in request.body or "guided_grammar" in request.body:
        grammar = request.body.get("grammar", request.body.get("guided_grammar"))
        assert grammar == schema_to_gbnf(SCHEMA)
    return json.dumps(schema_instance(schema if schema is not None else SCHEMA))


async def _ask(spec_text: str, fake: FakeProvider) -> CallRecord:
    spec = parse_agent_spec(spec_text)
    async with Gateway(providers_for([spec], environ={})) as gateway:
        agent = build_agent(
            spec,
            gateway=gateway,
            format_name="weights",
            baseline_factory=_no_baselines,
            environ={},
        )
        reply = await agent.answer(TURN)
    (record,) = reply.records
    return record


@pytest.mark.parametrize(
    ("dialect", "where", "output", "fields"),
    [
        ("openai", "openai=", "", {"response_format"}),
        ("openai", "openai=", ",output=json_object", {"response_format"}),
        ("llamacpp", "llamacpp=", "", {"response_format"}),
        ("llamacpp", "llamacpp=", ",output=grammar", {"grammar"}),
        ("vllm", "vllm=", "", {"guided_json"}),
        ("vllm", "vllm=", ",output=grammar", {"guided_grammar"}),
        ("ollama", "ollama=", "", {"response_format"}),
        ("ollama", "", ",output=text", set()),
    ],
)
async def test_llm_each_dialect_is_spoken_and_its_answers_pass(
    dialect: Any, where: str, output: str, fields: set[str]
) -> None:
    """Issue 25: a server that accepts only its own dialect gets the round's schema in it,
    and the answer it writes to that schema passes the format's validation."""
    with FakeProvider(dialect=dialect) as fake:
        fake.respond_with("m", _follows_the_schema)
        record = await _ask(f"openai:m@{where}{fake.url}{output}", fake)
        (sent,) = fake.requests
    assert (record.outcome, record.error) == (Outcome.ANSWERED, None)
    structured = {"response_format", "guided_json", "guided_grammar", "grammar", "format"}
    assert structured & set(sent.body) == fields
    assert isinstance(validate_answer(record.text, set(SYMBOLS), WeightsPreset()), Decision)
    assert record.json_schema == (None if output == ",output=text" else SCHEMA)


@pytest.mark.parametrize(
    ("server", "spec", "says"),
    [
        ("llamacpp", "openai:m@URL,output=json_schema", 'must be one of "text" or "json_object"'),
        ("openai", "openai:m@vllm=URL", "Unrecognized request argument supplied: guided_json"),
        ("vllm", "openai:m@openai=URL", "is not supported here: use guided_json"),
        ("ollama", "openai:m@llamacpp=URL,output=grammar", "unsupported field: grammar"),
    ],
)
async def test_llm_a_refused_dialect_is_a_named_fault(server: Any, spec: str, says: str) -> None:
    """Issue 25: a server that refuses the dialect it was sent (llama-cpp-python's HTTP 500
    to OpenAI's json_schema, the real case) gives ``output_unsupported`` with its message."""
    with FakeProvider(dialect=server) as fake:
        fake.respond_with("m", _follows_the_schema)
        record = await _ask(spec.replace("URL", fake.url), fake)
        assert len(fake.requests) == 1
    assert record.outcome is Outcome.PROVIDER_ERROR
    assert error_class(record) == "output_unsupported"
    assert record.error is not None
    assert record.error.startswith("output_unsupported: the provider refused output=")
    assert says in record.error


def test_llm_openai_strict_schema_is_what_openai_accepts() -> None:
    """Issue 25: OpenAI's strict mode refuses the weights schema as the round builds it (its
    symbols are optional); the strict form sent makes each one a required number, and a
    value of it (every symbol at 0) is still a valid answer."""
    raw = {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": SCHEMA, "strict": True},
    }
    refused = dialect_refusal("openai", {"response_format": raw})
    assert refused is not None
    assert "Missing 'AAPL'" in refused[1]
    strict = strict_schema(SCHEMA)
    assert strict["properties"]["targets"]["required"] == sorted(SYMBOLS)
    assert "minLength" not in strict["properties"]["reason"]
    sent = output_fields("openai", "json_schema", SCHEMA)
    assert dialect_refusal("openai", sent) is None
    value = json.dumps(schema_instance(strict))
    assert isinstance(validate_answer(value, set(SYMBOLS), WeightsPreset()), Decision)


@pytest.mark.parametrize("dialect", ["openai", "ollama"])
def test_llm_dialects_without_grammar_refuse_it_at_start(dialect: str) -> None:
    """Issue 25: an output the endpoint cannot send is an error at start, listing the valid."""
    from tradeleague.errors import ConfigError

    with pytest.raises(ConfigError, match="cannot be sent output=grammar; valid: json_schema"):
        parse_agent_spec(f"openai:m@{dialect},output=grammar")


def test_llm_output_fields_per_dialect() -> None:
    """The table of ``tradeleague.llm.dialects``, field for field."""
    schema: Mapping[str, Any] = {
        "type": "object",
        "properties": {"direction": {"type": "string", "enum": ["up", "down"]}},
        "required": ["direction"],
        "additionalProperties": False,
    }
    assert output_fields("llamacpp", "json_schema", schema) == {
        "response_format": {"type": "json_object", "schema": schema}
    }
    assert output_fields("vllm", "json_schema", schema) == {"guided_json": schema}
    assert output_fields("ollama", "json_schema", schema) == {
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema},
        }
    }
    assert output_fields("openai", "json_schema", schema)["response_format"]["json_schema"] == {
        "name": "answer",
        "schema": schema,
        "strict": True,
    }
    for dialect in ("openai", "llamacpp", "vllm", "ollama"):
        assert output_fields(dialect, "json_object", schema) == {
            "response_format": {"type": "json_object"}
        }
        assert output_fields(dialect, "text", schema) == {}
    assert output_fields("llamacpp", "grammar", schema) == {"grammar": schema_to_gbnf(schema)}
    with pytest.raises(ValueError, match="does not send output=grammar"):
        output_fields("openai", "grammar", schema)
