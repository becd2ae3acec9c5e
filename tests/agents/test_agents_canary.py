"""A canary owner's key is used for the call and recorded nowhere in plain text (C-9, W-VAL-8).

The key is sealed with the vault, opened only at call time by LLM agents that
call the fake provider over real HTTP (answers and faults, two of them 401s
that quote the key back: whole, and as OpenAI does, prefix and last 4), and
every record is written as a ``ModelCalled`` event into a real store. Then the
logs (DEBUG, all loggers), every call record and agent reply, every response
body the server sent (but the one that quotes the key whole) and every column
of every table are searched for the key; every call record and ``ModelCalled``
payload, and every reply, for any run of 6 or more of its characters.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import pytest
import sqlalchemy as sa

from tradeleague.agents.base import AgentReply, Turn
from tradeleague.agents.llm import LlmAgent, SealedKeyReader
from tradeleague.agents.recorded import recorded_calls, store_recorder
from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.clock import WallClock
from tradeleague.events import Event, canonical_json
from tradeleague.keys import KeyVault, MasterKey, SealedKey, generate_master_key
from tradeleague.llm.gateway import Gateway
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.presets import preset
from tradeleague.llm.records import CallKey
from tradeleague.store import open_store
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour, Fault

OWNER = "0xowner-canary"
SEASON = "canary-season"
PARAMS = CallParams(timeout_s=3.0)
"""Only the hung model meets the deadline; every other answers however loaded the machine."""

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Scope]]
Send = Callable[[Scope], Awaitable[None]]


class _CaptureBodies:
    """ASGI middleware keeping every response body the fake server sends."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.bodies: list[bytes] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def capture(message: Scope) -> None:
            if message["type"] == "http.response.body":
                self.bodies.append(bytes(message.get("body", b"")))
            await send(message)

        await self.app(scope, receive, capture)


def _all_columns_as_text(url: str) -> list[str]:
    engine = sa.create_engine(url)
    texts: list[str] = []
    try:
        with engine.connect() as connection:
            tables = sa.inspect(connection).get_table_names()
            assert "events" in tables
            for table in tables:
                for row in connection.execute(sa.text(f'SELECT * FROM "{table}"')):
                    for value in row:
                        raw = value.decode("latin-1") if isinstance(value, bytes) else value
                        texts.append(str(raw))
    finally:
        engine.dispose()
    return texts


async def test_agents_canary_key_is_used_but_never_recorded(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """C-9, W-VAL-8: the canary authenticates the call and appears only as ciphertext."""
    caplog.set_level(logging.DEBUG)
    canary = f"sk-{secrets.token_hex(20)}"
    hidden = canary[:-4]
    vault = KeyVault([MasterKey.from_text(generate_master_key())])
    sealed = vault.seal(OWNER, canary)
    fake = FakeProvider(require_key=canary)
    capture = _CaptureBodies(fake.app)
    fake.app = capture  # type: ignore[assignment]
    replies: list[AgentReply] = []
    with open_store(db_url) as store:
        # the sealed key is stored too: the ciphertext is in the database, the key is not
        store.append([Event.now(WallClock(), "owners", "KeySealed", sealed.to_dict())])
        async with fake:
            fake.script_model("good", '{"direction": "up", "rationale": "r"}')
            fake.script_model("hangs", Behaviour(fault=Fault.HANG))
            fake.script_model("broken", Behaviour(fault=Fault.SERVER_ERROR))
            fake.script_model("limited", Behaviour(fault=Fault.RATE_LIMITED))
            fake.script_model("echoed", Behaviour(fault=Fault.KEY_ECHOED))
            fake.script_model("masked", Behaviour(fault=Fault.KEY_MASKED))
            provider = OpenAICompatProvider(
                preset("openrouter").with_base_url(fake.url), environ={}
            )
            recorder = store_recorder(store, stream=SEASON, clock=WallClock())
            async with Gateway([provider], recorder=recorder) as gw:
                good = SealedKeyReader(vault, OWNER, sealed)
                cases: list[tuple[str, SealedKeyReader | SealedKey, Outcome]] = [
                    ("good", good, Outcome.ANSWERED),
                    ("hangs", good, Outcome.TIMEOUT),
                    ("broken", good, Outcome.PROVIDER_ERROR),
                    ("limited", good, Outcome.RATE_LIMITED),
                    ("missing", good, Outcome.MODEL_NOT_FOUND),
                    ("echoed", good, Outcome.KEY_REJECTED),
                    ("masked", good, Outcome.KEY_REJECTED),
                    ("good", SealedKeyReader(vault, "0xthief", sealed), Outcome.KEY_UNREADABLE),
                    ("good", vault.seal(OWNER, "sk-wrong-key-000000"), Outcome.KEY_REJECTED),
                ]
                for i, (model, key, outcome) in enumerate(cases):
                    reader = (
                        key
                        if isinstance(key, SealedKeyReader)
                        else (SealedKeyReader(vault, OWNER, key))
                    )
                    agent = LlmAgent(
                        name=f"a{i}", model=model, provider="openrouter", gateway=gw, api_key=reader
                    )
                    turn = Turn(
                        format="direction",
                        key=CallKey(SEASON, "r1", agent.name, 0),
                        messages=(Message("system", "You trade."), Message("user", "Up?")),
                        params=PARAMS,
                    )
                    reply = await agent.answer(turn)
                    assert reply.outcome is outcome, (model, reply)
                    replies.append(reply)
                    logging.getLogger("tradeleague.test").debug("reply %r agent %r", reply, agent)
        # the key was really used: the provider received it as the bearer
        sent = [r.authorization for r in fake.requests]
        assert f"Bearer {canary}" in sent
        assert len(sent) == 8  # every case but the unreadable key reached the server
        records = recorded_calls(store, SEASON)
    assert len(records) == len(cases)

    assert capture.bodies
    assert caplog.records
    loggers = {r.name for r in caplog.records}
    # the HTTP client's own DEBUG logs (each request and response) were searched too
    assert {"tradeleague.llm.http", "tradeleague.keys.vault"} <= loggers
    seen: list[str] = [caplog.text, *(r.getMessage() for r in caplog.records)]
    bodies = [b.decode("utf-8", "replace") for b in capture.bodies]
    # the server really quoted the key: whole once, and OpenAI's way (prefix and last 4)
    (echo,) = [b for b in bodies if canary in b]
    assert "Incorrect API key provided" in echo
    assert any(f"{canary[:8]}*" in b and f"*{canary[-4:]}" in b for b in bodies)
    seen += [b for b in bodies if b != echo]
    recorded = [canonical_json(r.to_payload()) for r in records]
    recorded += [repr(r) for r in replies]
    assert sum("HTTP 401: Incorrect API key provided: [redacted]" in t for t in recorded) >= 2
    seen += recorded
    columns = _all_columns_as_text(db_url)
    seen += columns
    assert any(sealed.ciphertext in text for text in columns)  # stored, but sealed
    for text in seen:
        assert canary not in text
        assert hidden not in text
    pieces = {canary[i : i + 6] for i in range(len(canary) - 5)}
    for text in recorded:  # every record, ModelCalled payload and reply
        assert not [p for p in pieces if p in text], text
