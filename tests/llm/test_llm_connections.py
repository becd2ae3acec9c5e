"""Model calls share keep-alive connections: one pool per provider and event loop.

Against the fake provider, which counts the TCP connections it accepted, and
against a raw asyncio server for what the fake never does (a body delimited by
the connection's end, a compressed body). Dropped connections and the rule that
a request is never sent twice: ``test_llm_no_second_send.py``.
"""

from __future__ import annotations

import asyncio
import gzip
import ipaddress
import json
import ssl
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import uvloop
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tradeleague.calls import CallParams, Message, Outcome
from tradeleague.llm.gateway import Call, Gateway
from tradeleague.llm.http_pool import HttpFailure, HttpPool
from tradeleague.llm.openai_compat import OpenAICompatProvider
from tradeleague.llm.records import CallKey, CallRecord
from tradeleague.llm.types import ChatRequest
from tradeleague.testing.fake_provider import FakeProvider
from tradeleague.testing.fake_script import Behaviour, Fault

ANSWER = '{"direction": "up", "rationale": "r"}'
COMPLETION = json.dumps(
    {"choices": [{"message": {"content": ANSWER}, "finish_reason": "stop"}]}
).encode()


async def test_llm_many_calls_open_at_most_the_pool_size(
    fake: FakeProvider, provider_on: Callable[..., OpenAICompatProvider], ask: Callable[..., Call]
) -> None:
    """200 concurrent calls through a pool of 16 open at most 16 connections; 200 more
    open none, and the server saw every call."""
    fake.script_model("m", Behaviour(text=ANSWER, latency_s=0.01))
    # a loaded machine's slow batch must not age its connections past reuse
    provider = provider_on(fake.url, max_connections=16, max_idle_s=3600.0)
    async with Gateway([provider], limits={"openrouter": 200}) as gw:
        first = await gw.call_all([ask("m", agent=f"a{i}") for i in range(200)])
        opened = fake.connections
        second = await gw.call_all([ask("m", agent=f"b{i}") for i in range(200)])
        assert provider.pool is not None
        assert provider.pool.opened == fake.connections
    assert all(r.outcome is Outcome.ANSWERED for r in [*first, *second])
    assert 1 <= opened <= 16
    assert fake.connections == opened
    assert len(fake.requests) == 400


async def test_llm_sequential_calls_reuse_one_connection(
    fake: FakeProvider, gateway: tuple[Gateway, list[CallRecord]], ask: Callable[..., Call]
) -> None:
    """One call after another rides one keep-alive connection."""
    gw, _ = gateway
    fake.script_model("m", ANSWER)
    for i in range(20):
        assert (await gw.call(ask("m", agent=f"a{i}"))).outcome is Outcome.ANSWERED
    assert fake.connections == 1


async def test_llm_a_call_cut_at_the_deadline_never_hands_its_connection_on(
    fake: FakeProvider,
    gateway: tuple[Gateway, list[CallRecord]],
    ask: Callable[..., Call],
    cut: CallParams,
) -> None:
    """D-RND-3: the deadline closes a hanging call's connection (its answer is still due);
    the next call opens a new one and gets its own answer."""
    gw, _ = gateway
    fake.script_model("hangs", Behaviour(fault=Fault.HANG))
    fake.script_model("m", ANSWER)
    assert (await gw.call(ask("hangs", params=cut))).outcome is Outcome.TIMEOUT
    record = await gw.call(ask("m"))
    assert (record.outcome, record.text) == (Outcome.ANSWERED, ANSWER)
    assert fake.connections == 2


async def test_llm_connection_close_is_honoured(
    fake: FakeProvider, gateway: tuple[Gateway, list[CallRecord]], ask: Callable[..., Call]
) -> None:
    """A response that says ``Connection: close`` ends its connection; calls go on."""
    gw, _ = gateway
    fake.respond_raw(
        "m", 200, COMPLETION, {"content-type": "application/json", "connection": "close"}
    )
    for i in range(3):
        assert (await gw.call(ask("m", agent=f"a{i}"))).text == ANSWER
    assert fake.connections == 3


def test_llm_provider_serves_one_event_loop_after_another(
    provider_on: Callable[..., OpenAICompatProvider],
) -> None:
    """A pool belongs to its event loop; a provider used under a new loop opens a new one."""
    with FakeProvider() as fake:
        fake.script_model("m", ANSWER)
        provider = provider_on(fake.url)
        request = ChatRequest(model="m", messages=(Message("user", "Up?"),), params=CallParams())
        call = Call(
            request=request, provider="openrouter", key=CallKey("s", "r", "a", 0), api_key="sk"
        )

        async def one() -> Outcome:
            async with Gateway([provider]) as gw:
                return (await gw.call(call)).outcome

        assert [asyncio.run(one()), asyncio.run(one())] == [Outcome.ANSWERED] * 2
        assert fake.connections == 2


def test_llm_provider_runs_on_uvloop(provider_on: Callable[..., OpenAICompatProvider]) -> None:
    """The web server's loop (uvloop) carries calls too, and closing leaves nothing open."""
    with FakeProvider() as fake:
        fake.script_model("m", ANSWER)
        provider = provider_on(fake.url)
        request = ChatRequest(model="m", messages=(Message("user", "Up?"),), params=CallParams())

        async def one() -> tuple[Outcome, str | None]:
            reply = await provider.complete(request, "sk")
            await provider.aclose()
            return reply.outcome, reply.text

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            assert runner.run(one()) == (Outcome.ANSWERED, ANSWER)
        assert fake.connections == 1


# -- the pool against a raw server ---------------------------------------------------------


async def _read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return await reader.readexactly(length)


@asynccontextmanager
async def _raw_server(
    answer: Callable[[int, int], bytes | None],
) -> AsyncIterator[tuple[str, list[int]]]:
    """Serve ``answer(connection, request)`` bytes (``None``: close without answering);
    a reply that says ``Connection: close`` is the connection's last."""
    accepted: list[int] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = len(accepted)
        accepted.append(conn)
        n = 0
        try:
            while True:
                await _read_request(reader)
                reply = answer(conn, n)
                n += 1
                if reply is None:
                    break
                writer.write(reply)
                await writer.drain()
                if b"Connection: close" in reply:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/v1", accepted
    finally:
        server.close()
        await server.wait_closed()


def _response(body: bytes, *headers: str) -> bytes:
    head = "".join(f"{h}\r\n" for h in headers)
    return f"HTTP/1.1 200 OK\r\n{head}\r\n".encode() + body


async def test_llm_pool_reads_bodies_ended_by_close_and_compressed() -> None:
    """A body delimited by the connection's end, and a gzip body, arrive whole."""
    packed = gzip.compress(COMPLETION)

    def answer(conn: int, n: int) -> bytes | None:
        if conn == 0:
            return _response(COMPLETION, "Connection: close")
        return _response(packed, "Content-Encoding: gzip", f"Content-Length: {len(packed)}")

    async with _raw_server(answer) as (url, _):
        pool = HttpPool(url, max_connections=1)
        ended_by_close = await pool.post("/chat/completions", b"{}", {})
        compressed = await pool.post("/chat/completions", b"{}", {})
        pool.close()
    assert ended_by_close.body == compressed.body == COMPLETION
    assert compressed.headers["content-encoding"] == "gzip"


async def test_llm_pool_refuses_bodies_and_headers_past_their_bounds() -> None:
    """DESIGN principle 7: a body or headers larger than the bound fail, not fill memory."""
    big = b"x" * 5000
    many = [f"X-Filler-{i}: {'y' * 1000}" for i in range(70)]  # 70 kB of headers

    def answer(conn: int, n: int) -> bytes | None:
        if conn == 0:
            return _response(big, f"Content-Length: {len(big)}")
        return _response(COMPLETION, *many, f"Content-Length: {len(COMPLETION)}")

    async with _raw_server(answer) as (url, _):
        pool = HttpPool(url, max_connections=1, max_body_bytes=4096)
        with pytest.raises(HttpFailure, match="larger than 4096 bytes"):
            await pool.post("/chat/completions", b"{}", {})
        with pytest.raises(HttpFailure, match="headers exceed"):
            await pool.post("/chat/completions", b"{}", {})
        pool.close()


def _self_signed(tmp: Path) -> tuple[Path, Path]:
    """Write a self-signed certificate for 127.0.0.1 and its key; return their paths."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp / "cert.pem", tmp / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


async def test_llm_pool_speaks_tls_and_checks_the_certificate(tmp_path: Path) -> None:
    """An https endpoint is reached over TLS, keep-alive included; a certificate the
    client does not trust is a connection failure, never a silent plain call."""
    cert, key = _self_signed(tmp_path)
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    served.load_cert_chain(cert, key)
    accepted: list[int] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(1)
        try:
            while True:
                await _read_request(reader)
                writer.write(_response(COMPLETION, f"Content-Length: {len(COMPLETION)}"))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=served)
    url = f"https://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"
    try:
        trusting = HttpPool(
            url, max_connections=2, ssl_context=ssl.create_default_context(cafile=cert)
        )
        replies = [await trusting.post("/chat/completions", b"{}", {}) for _ in range(3)]
        trusting.close()
        assert [r.body for r in replies] == [COMPLETION] * 3
        assert len(accepted) == 1
        wary = HttpPool(url, max_connections=1)  # the system's trust store: not this certificate
        with pytest.raises(ssl.SSLCertVerificationError):
            await wary.post("/chat/completions", b"{}", {})
        wary.close()
    finally:
        server.close()
