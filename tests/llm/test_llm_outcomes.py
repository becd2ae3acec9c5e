"""Every outcome class, over real HTTP against the fake provider (C-5, W-VAL-8, D-RND-3)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tradeleague.agents.spec import EnvKey, KeyNotSet
from tradeleague.calls import CallParams, Outcome
from tradeleague.keys import KeyUnreadable, KeyVault, MasterKey, generate_master_key
from tradeleague.llm.gateway import Call, Gateway, key_error_text
from tradeleague.llm.openai_compat import CLIENT_TIMEOUT_SLACK_S, OpenAICompatProvider
from tradeleague.llm.presets import preset
from tradeleague.llm.records import CallRecord
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import REFUSAL_TEXT, Behaviour, Fault
from tradeleague.testing.ports import refusing_url

GW = tuple[Gateway, list[CallRecord]]
ANSWER = '{"direction": "up", "rationale": "momentum"}'


async def test_answered_text_usage_and_exact_request(
    fake: FakeProvider, gateway: GW, ask: Callable[..., Call]
) -> None:
    """C-2, C-5, D-ASK-2: one answer; the request carries the round's parameters exactly."""
    gw, records = gateway
    fake.script_model("m", Behaviour(text=ANSWER, prompt_tokens=120, completion_tokens=15))
    record = await gw.call(ask("m"))
    assert record.outcome is Outcome.ANSWERED
    assert record.text == ANSWER
    assert (record.prompt_tokens, record.completion_tokens) == (120, 15)
    assert record.http_status == 200
    assert record.finish_reason == "stop"
    assert records == [record]
    (sent,) = fake.requests
    assert sent.body["messages"] == [
        {"role": "system", "content": "You trade."},
        {"role": "user", "content": "Up or down?"},
    ]
    assert sent.body["temperature"] == 0.3
    assert sent.body["max_tokens"] == 320
    assert sent.body["reasoning"] == {"enabled": False}
    assert sent.authorization == "Bearer sk-test-0000"


@pytest.mark.parametrize(
    ("fault", "outcome", "status"),
    [
        (Fault.UNAUTHORIZED, Outcome.KEY_REJECTED, 401),
        (Fault.FORBIDDEN, Outcome.KEY_REJECTED, 403),
        (Fault.NOT_FOUND, Outcome.MODEL_NOT_FOUND, 404),
        (Fault.RATE_LIMITED, Outcome.RATE_LIMITED, 429),
        (Fault.SERVER_ERROR, Outcome.PROVIDER_ERROR, 500),
        (Fault.UNAVAILABLE, Outcome.PROVIDER_ERROR, 503),
    ],
)
async def test_http_faults_map_to_outcomes(
    fake: FakeProvider,
    gateway: GW,
    ask: Callable[..., Call],
    fault: Fault,
    outcome: Outcome,
    status: int,
) -> None:
    """W-VAL-8: a rejected key or model, a rate limit and provider errors are outcomes."""
    gw, records = gateway
    fake.script_model("m", Behaviour(fault=fault))
    record = await gw.call(ask("m"))
    assert record.outcome is outcome
    assert record.http_status == status
    assert record.text is None
    assert record.error is not None
    assert record.error.startswith(f"HTTP {status}: ")
    assert record.cost_micros is None  # no price table entry
    assert records == [record]


async def test_unknown_model_is_model_not_found(
    fake: FakeProvider, gateway: GW, ask: Callable[..., Call]
) -> None:
    """W-VAL-8: a model name the provider does not know."""
    gw, _ = gateway
    record = await gw.call(ask("no-such-model"))
    assert record.outcome is Outcome.MODEL_NOT_FOUND
    assert record.error is not None
    assert "no-such-model" in record.error


async def test_wrong_key_is_key_rejected(fake: FakeProvider, ask: Callable[..., Call]) -> None:
    """W-VAL-8: the server rejects the key it was sent (an owner's key, passed per call)."""
    fake.script_model("m", ANSWER)
    provider = OpenAICompatProvider(preset("openrouter").with_base_url(fake.url), environ={})
    async with Gateway([provider]) as gw:
        call = ask("m")
        record = await gw.call(
            Call(request=call.request, provider=call.provider, key=call.key, api_key="sk-bad")
        )
    assert record.outcome is Outcome.KEY_REJECTED
    assert record.http_status == 401
    assert fake.requests[0].authorization == "Bearer sk-bad"


async def test_hang_is_timeout_at_the_deadline(
    fake: FakeProvider, gateway: GW, ask: Callable[..., Call], cut: CallParams
) -> None:
    """D-RND-3: a model that has not replied by the deadline is aborted: ``timeout``."""
    gw, _ = gateway
    fake.script_model("m", Behaviour(fault=Fault.HANG))
    record = await gw.call(ask("m", params=cut))
    assert record.outcome is Outcome.TIMEOUT
    # the gateway's deadline ended it, not the client's own timeout (1 s later)
    assert record.error == f"no reply within {record.params.timeout_s} s of the ask"
    assert 600 <= record.elapsed_ms < 600 + CLIENT_TIMEOUT_SLACK_S * 1000
    assert record.latency_ms + record.queued_ms + 1 >= 600
    assert record.text is None
    assert len(fake.requests) == 1


async def test_slow_answer_past_deadline_is_timeout(
    fake: FakeProvider, gateway: GW, ask: Callable[..., Call], cut: CallParams
) -> None:
    """D-RND-3: an answer that would arrive after the window is not waited for."""
    gw, _ = gateway
    fake.script_model("m", Behaviour(text=ANSWER, latency_s=60.0))  # released when the fake stops
    record = await gw.call(ask("m", params=cut))
    assert record.outcome is Outcome.TIMEOUT
    assert record.elapsed_ms < 30_000  # the window ended it, not the answer


async def test_connection_refused_is_provider_error(
    provider_on: Callable[..., OpenAICompatProvider], ask: Callable[..., Call]
) -> None:
    """W-VAL-8: nothing listens on the provider's port: ``provider_error``."""
    async with Gateway([provider_on(refusing_url("/v1"))]) as gw:
        record = await gw.call(ask("m"))
    assert record.outcome is Outcome.PROVIDER_ERROR
    assert record.http_status is None
    assert record.error is not None
    assert record.error.startswith("connection failed")


async def test_malformed_body_is_provider_error(
    fake: FakeProvider, gateway: GW, ask: Callable[..., Call]
) -> None:
    """C-6: a body that is not JSON is the provider's fault, never guessed at."""
    gw, _ = gateway
    fake.script_model("m", Behaviour(fault=Fault.MALFORMED_JSON))
    record = await gw.call(ask("m"))
    assert record.outcome is Outcome.PROVIDER_ERROR
    assert record.http_status == 200
    assert record.error is not None
    assert record.error.startswith("malformed response body")


async def test_missing_key_variable_is_key_unreadable(
    fake: FakeProvider, ask: Callable[..., Call]
) -> None:
    """W-VAL-8: the preset's key variable is unset: ``key_unreadable``, nothing sent."""
    provider = OpenAICompatProvider(preset("openrouter").with_base_url(fake.url), environ={})
    async with Gateway([provider]) as gw:
        record = await gw.call(ask("m"))
    assert record.outcome is Outcome.KEY_UNREADABLE
    assert record.error == "environment variable OPENROUTER_API_KEY is not set"
    assert fake.requests == []


async def test_key_reader_failure_is_key_unreadable_and_secret_free(
    fake: FakeProvider, gateway: GW, ask: Callable[..., Call]
) -> None:
    """C-9, W-VAL-8: an owner's key that cannot be decrypted; its error never quotes it."""
    gw, records = gateway

    def broken_key() -> str:
        raise ValueError("cannot decrypt sk-secret-1234")

    call = ask("m")
    record = await gw.call(
        Call(request=call.request, provider=call.provider, key=call.key, api_key=broken_key)
    )
    assert record.outcome is Outcome.KEY_UNREADABLE
    assert "sk-secret" not in repr(record.to_payload())
    assert fake.requests == []
    assert records == [record]


async def test_known_secret_free_key_errors_say_why(
    fake: FakeProvider, gateway: GW, ask: Callable[..., Call]
) -> None:
    """C-9, W-VAL-8: a missing key variable or a sealed key that does not open is recorded
    with its message (which variable, why), still with no secret and nothing sent."""
    gw, _ = gateway
    vault = KeyVault([MasterKey.from_text(generate_master_key())])
    sealed = vault.seal("0xowner", "sk-sealed-secret-9999")
    readers: list[Callable[[], str]] = [
        EnvKey("TL_TEST_UNSET_KEY", environ={}),
        lambda: vault.open("0xthief", sealed),
    ]
    call = ask("m")
    errors = []
    for reader in readers:
        record = await gw.call(
            Call(request=call.request, provider=call.provider, key=call.key, api_key=reader)
        )
        assert record.outcome is Outcome.KEY_UNREADABLE
        assert record.error is not None
        assert "sk-sealed" not in repr(record.to_payload())
        errors.append(record.error)
    assert errors == [
        "the key could not be read (KeyNotSet: environment variable TL_TEST_UNSET_KEY is not set)",
        "the key could not be read (KeyUnreadable: the key does not authenticate: "
        "it belongs to another owner or was altered)",
    ]
    assert fake.requests == []


def test_key_error_text_trusts_only_the_named_exact_types() -> None:
    """C-9: an unknown exception, or a subclass of a trusted one, keeps only its type name."""

    class LeakyNotSet(KeyNotSet):
        pass

    assert key_error_text(ValueError("sk-123")) == "the key could not be read (ValueError)"
    assert key_error_text(LeakyNotSet("sk-123")) == "the key could not be read (LeakyNotSet)"
    assert key_error_text(KeyUnreadable("why")) == "the key could not be read (KeyUnreadable: why)"


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        (Fault.CODE_FENCES, f"```json\n{ANSWER}\n```"),
        (Fault.PROSE, f"Sure! After looking at the data, here is my answer:\n{ANSWER}\nGood luck!"),
        (Fault.REFUSAL, REFUSAL_TEXT),
    ],
)
async def test_awkward_answers_are_kept_exactly(
    fake: FakeProvider, gateway: GW, ask: Callable[..., Call], fault: Fault, expected: str
) -> None:
    """C-4, D-ASK-3: fences, prose and refusals are answers, stored exactly as received."""
    gw, _ = gateway
    fake.script_model("m", Behaviour(text=ANSWER, fault=fault))
    record = await gw.call(ask("m"))
    assert record.outcome is Outcome.ANSWERED
    assert record.text == expected


async def test_oversized_answer_is_kept_whole(
    fake: FakeProvider, gateway: GW, ask: Callable[..., Call]
) -> None:
    """C-4: an over-long answer is stored whole; cutting it is the format's job."""
    gw, _ = gateway
    fake.script_model("m", Behaviour(text="ab", fault=Fault.OVERSIZED, oversize_chars=50_001))
    record = await gw.call(ask("m"))
    assert record.outcome is Outcome.ANSWERED
    assert record.text == ("ab" * 25_001)[:50_001]
    assert record.finish_reason == "length"
