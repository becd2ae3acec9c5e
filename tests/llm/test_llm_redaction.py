"""No error text a call record keeps holds the key that was sent (C-9, C-5).

Providers quote the key they were sent in their error texts: OpenAI its prefix
and last four characters, some compatible servers the whole key or the
``Authorization`` header. These tests play such servers over real HTTP and
search every record, and its event payload, for any run of the key longer than
the four characters C-9 lets show.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.calls import Outcome
from tradeleague.events import canonical_json
from tradeleague.llm.gateway import Call, Gateway
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.presets import preset
from tradeleague.llm.records import CallRecord
from tradeleague.llm.redact import KEY_CHARS_SHOWN, REDACTED, looks_like_secret, redact_secrets
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour, Fault, echo_key_message

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Scope]]
Send = Callable[[Scope], Awaitable[None]]

KEY_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"


def _owner_key() -> str:
    return f"sk-or-v1-{secrets.token_hex(24)}"


def _shown_pieces(text: str, key: str) -> list[str]:
    """Return every run of ``key`` longer than C-9 allows that ``text`` still shows."""
    outside = text.replace(REDACTED, "\0")  # the marker itself shows nothing of the key
    size = KEY_CHARS_SHOWN + 1
    return [key[i : i + size] for i in range(len(key) - size + 1) if key[i : i + size] in outside]


def _record_texts(record: CallRecord) -> list[str]:
    return [repr(record), canonical_json(record.to_payload()), repr(record.reply)]


@given(
    key=st.text(KEY_CHARS, min_size=8, max_size=80),
    before=st.text(max_size=40),
    after=st.text(max_size=40),
    cut=st.integers(0, 80),
)
def test_llm_redaction_leaves_no_run_of_the_key_longer_than_four(
    key: str, before: str, after: str, cut: int
) -> None:
    """C-9: the key, its prefixes, suffixes and inner runs never survive; at most 4 chars show."""
    echoes = [key, key[:cut], key[cut:], key[cut // 2 : cut + 5], f"Bearer {key}"]
    text = before + " | ".join(echoes) + after
    out = redact_secrets(text, key)
    assert _shown_pieces(out, key) == []


def test_llm_redaction_keeps_the_last_four_and_ordinary_texts() -> None:
    """C-9, C-5: the last 4 may show; error texts that hold no secret are kept word for word."""
    key = _owner_key()
    assert redact_secrets(f"key ending in ...{key[-4:]} rejected", key) == (
        f"key ending in ...{key[-4:]} rejected"
    )
    plain = [
        "HTTP 429: Rate limit reached; retry later. (rate_limit_exceeded) (retry after 2 s)",
        "HTTP 404: The model `meta-llama/llama-3.1-8b-instruct` does not exist.",
        "HTTP 400: invalid_request_error: max token limit exceeded for this_model_name",
        "environment variable OPENROUTER_API_KEY is not set",
        "no reply within 0.6 s of the ask",
    ]
    for text in plain:
        assert redact_secrets(text, key) == text
    assert redact_secrets(f"Incorrect API key provided: {key[:8]}****{key[-4:]}.") == (
        f"Incorrect API key provided: {REDACTED}"
    )
    assert redact_secrets("Authorization: Bearer abc.def") == f"Authorization: Bearer {REDACTED}"
    assert redact_secrets("GET /v1?api_key=xyz&x=1") == f"GET /v1?api_key={REDACTED}&x=1"
    assert redact_secrets(f"no such key: gsk_{'aB3dE5gH7jK9mN1p' * 2}") == (
        f"no such key: {REDACTED}"
    )
    for secret in (
        "aB3dE5gH7jK9mN1pQ2sT4vW6",
        "7f3a9c1e5b2d8f4a6c0e9b1d",
        "req-Zk81QmT4vX0pL7sR2yW9nB3c",
    ):
        assert looks_like_secret(secret), secret
    for name in (
        "invalid_request_error_for_model",
        "APIResponseValidationError",
        "claude-3-5-sonnet-20241022",
        "Meta-Llama-3_1-405B-Instruct-Turbo",
    ):
        assert not looks_like_secret(name), name
        assert redact_secrets(f"The model `{name}` does not exist.") == (
            f"The model `{name}` does not exist."
        )


def test_llm_fake_key_echo_messages() -> None:
    """C-9: the fake's echo faults quote the key as servers do (whole; 8 + stars + last 4)."""
    key = "sk-proj-0123456789abcdefWXYZ"
    assert key in echo_key_message(Fault.KEY_ECHOED, key)
    assert "sk-proj-****************WXYZ" in echo_key_message(Fault.KEY_MASKED, key)
    with pytest.raises(ValueError, match="does not echo"):
        echo_key_message(Fault.UNAUTHORIZED, key)


@pytest.mark.parametrize("fault", [Fault.KEY_ECHOED, Fault.KEY_MASKED])
@pytest.mark.parametrize("per_call", [True, False], ids=["owner-key", "env-key"])
async def test_llm_401_echoing_the_key_is_recorded_redacted(
    fault: Fault, per_call: bool, ask: Callable[..., Call]
) -> None:
    """C-9, W-VAL-8: a 401 that quotes the key is ``key_rejected``; its record holds no piece."""
    key = _owner_key()
    records: list[CallRecord] = []
    with FakeProvider() as fake:
        fake.script_model("m", Behaviour(fault=fault))
        environ = {} if per_call else {"OPENROUTER_API_KEY": key}
        provider = OpenAICompatProvider(
            preset("openrouter").with_base_url(fake.url), environ=environ
        )
        async with Gateway([provider], recorder=records.append) as gw:
            call = ask("m")
            if per_call:
                call = replace(call, api_key=key)
            record = await gw.call(call)
        assert fake.requests[0].authorization == f"Bearer {key}"
    assert record.outcome is Outcome.KEY_REJECTED
    assert record.http_status == 401
    assert record.error is not None
    assert record.error.startswith("HTTP 401: Incorrect API key provided: ")
    assert REDACTED in record.error
    assert records == [record]
    for text in _record_texts(record):
        assert _shown_pieces(text, key) == [], text


def _echo_app(status: int) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """An ASGI app answering every request with a non-JSON body that quotes its bearer."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope["headers"])
        bearer = headers.get(b"authorization", b"").decode()
        while (await receive()).get("more_body"):
            pass
        body = f"<html>proxy says no; you sent {bearer} (key {bearer[7:]})</html>".encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"text/html")],
            }
        )
        await send({"type": "http.response.body", "body": body})

    return app


@pytest.mark.parametrize(
    ("status", "outcome"),
    [(200, Outcome.PROVIDER_ERROR), (401, Outcome.KEY_REJECTED), (502, Outcome.PROVIDER_ERROR)],
)
async def test_llm_non_json_bodies_quoting_the_key_are_redacted(
    status: int, outcome: Outcome, ask: Callable[..., Call]
) -> None:
    """C-9, C-5: a body snippet kept in the error text (unreadable 200, HTML error) is redacted."""
    key = _owner_key()
    fake = FakeProvider()
    fake.app = _echo_app(status)  # type: ignore[assignment]
    with fake:
        provider = OpenAICompatProvider(preset("openrouter").with_base_url(fake.url), environ={})
        async with Gateway([provider]) as gw:
            record = await gw.call(replace(ask("m"), api_key=key))
    assert record.outcome is outcome
    assert record.http_status == status
    assert record.error is not None
    assert "proxy says no" in record.error  # the snippet is still there, minus the key
    for text in _record_texts(record):
        assert _shown_pieces(text, key) == [], text
