"""``serve --workers 2`` on PostgreSQL: any worker serves any step of a sign-in.

Two server processes share one address and one store. A wallet asks a nonce,
signs in, reads its account and signs out over fresh connections, so the
kernel hands them to either worker (each response names its worker). The
session and its CSRF token opened at one worker hold at another, and a
nonce spent at one is refused at the other: those live in the store, not in
a process. SQLite is refused with one sentence.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import httpx
from eth_account import Account

from account.owners_kit import sign, siwe_text  # type: ignore[import-not-found]
from tradeleague.cli.serve import WORKER_HEADER
from tradeleague.testing.ports import listen_port

ROOT = Path(__file__).resolve().parents[2]
TRIES = 400
"""Fresh connections to try before giving up on meeting the other worker."""
WAIT = 60.0
"""Seconds an answer may take (a worker's first request builds its pages on a loaded machine)."""


@contextmanager
def _workers(db: str, log: Path) -> Iterator[str]:
    port = listen_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env.pop("TRADELEAGUE_SESSION_SECRET", None)  # serve draws one for both workers
    command = [sys.executable, "-m", "tradeleague.cli", "serve", "--db", db, "--port", str(port)]
    with log.open("wb") as errors:
        process = subprocess.Popen(
            [*command, "--workers", "2"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            start_new_session=True,  # its workers are in its group, stopped with it
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.2)
        yield base
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)  # uvicorn's supervisor stops its workers
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)


def _until_other(
    ask: Callable[[], httpx.Response], worker: str
) -> tuple[httpx.Response, list[httpx.Response]]:
    """Ask over fresh connections until a worker other than ``worker`` answers; return all."""
    seen: list[httpx.Response] = []
    for _ in range(TRIES):
        answer = ask()
        seen.append(answer)
        if answer.headers[WORKER_HEADER] != worker:
            return answer, seen
    raise AssertionError(f"{TRIES} connections all went to worker {worker}")


def test_a_session_and_a_spent_nonce_hold_across_workers(pg_url: str, tmp_path: Path) -> None:
    """Signed in at one worker, served by another; a nonce spent at one is refused at another."""
    wallet = Account.create()
    with _workers(pg_url, tmp_path / "serve.log") as base:
        challenge = httpx.get(f"{base}/api/v1/account/nonce", timeout=WAIT)
        text = siwe_text(
            wallet,
            domain=challenge.json()["domain"],
            nonce=challenge.json()["nonce"],
            issued=datetime.now(UTC),
        )
        body = {"message": text, "signature": sign(wallet, text)}
        login = httpx.post(f"{base}/api/v1/account/login", json=body, timeout=WAIT)
        assert login.status_code == 200, login.text
        at = login.headers[WORKER_HEADER]

        # the spent nonce, sent again until the other worker has refused it too
        refusal, replays = _until_other(
            lambda: httpx.post(f"{base}/api/v1/account/login", json=body, timeout=WAIT), at
        )
        assert refusal.status_code == 401
        assert {r.json()["error"]["code"] for r in replays} == {"unknown_nonce"}

        cookies = dict(login.cookies)
        mine, _ = _until_other(
            lambda: httpx.get(f"{base}/api/v1/account", cookies=cookies, timeout=WAIT), at
        )
        assert mine.status_code == 200, mine.text
        assert mine.json()["wallet"].lower() == wallet.address.lower()

        # cookie writes at the other worker: the CSRF token was derived at the first
        csrf = {"X-CSRF-Token": cookies["tl_csrf"]}
        made, writes = _until_other(
            lambda: httpx.post(
                f"{base}/api/v1/account/keys", cookies=cookies, headers=csrf, timeout=WAIT
            ),
            at,
        )
        assert {r.status_code for r in writes} == {201}, made.text
        listed = httpx.get(f"{base}/api/v1/account/keys", cookies=cookies, timeout=WAIT)
        assert len(listed.json()["keys"]) == len(writes)  # whichever worker made each

        # signed out at one worker: the session is over at every worker
        out = httpx.post(
            f"{base}/api/v1/account/logout", cookies=cookies, headers=csrf, timeout=WAIT
        )
        assert out.status_code == 200, out.text
        after, ended = _until_other(
            lambda: httpx.get(f"{base}/api/v1/account", cookies=cookies, timeout=WAIT),
            out.headers[WORKER_HEADER],
        )
        assert {r.status_code for r in ended} == {401}, after.text


def test_workers_on_sqlite_are_refused_in_one_sentence(sqlite_url: str) -> None:
    """SQLite takes one writer at a time: --workers 2 says so and serves nothing."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run(
        [sys.executable, "-m", "tradeleague.cli", "serve", "--db", sqlite_url, "--workers", "2"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "needs PostgreSQL" in " ".join(done.stderr.split())
    assert not Path(sqlite_url.removeprefix("sqlite:///")).exists()
