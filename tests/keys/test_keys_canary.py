"""A canary key never leaks through logs, reprs, errors or storage (C-9)."""

from __future__ import annotations

import dataclasses
import logging
import pickle
import traceback

import pytest

from tradeleague.keys import KeyUnreadable, KeyVault, MasterKey, Secret, generate_master_key

CANARY = "sk-CANARY-7f3e9a1c5b2d4e6f8a0b"
OWNER = "0xcanary-owner"


def _assert_clean(text: str) -> None:
    assert CANARY not in text
    assert CANARY[:-4] not in text  # not even the hidden part on its own


def test_keys_canary_never_appears(caplog: pytest.LogCaptureFixture) -> None:
    """C-9: seal, open, print and fail with a canary key at DEBUG; it shows up nowhere."""
    caplog.set_level(logging.DEBUG)
    log = logging.getLogger("tradeleague.test.canary")
    old, new = (
        MasterKey.from_text(generate_master_key()),
        MasterKey.from_text(generate_master_key()),
    )
    vault = KeyVault([new, old])
    sealed = KeyVault([old]).seal(OWNER, CANARY)
    rotated = vault.rotate(OWNER, sealed)
    secret = vault.open_secret(OWNER, rotated)
    assert secret.reveal() == CANARY  # the key is really in there

    seen: list[str] = [sealed.to_json(), rotated.to_json(), str(rotated.to_dict())]
    for value in (sealed, rotated, secret, old, vault):
        seen += [repr(value), str(value), f"{value}", f"{value!r}"]
        log.debug("value %s %r", value, value)
        log.debug("value in a dict %s", {"key": value})
    log.debug("secret in a tuple %s", (secret,))
    seen.append(f"{secret:>40}")

    failures: list[BaseException] = []
    for attempt in (
        lambda: vault.open("0xsomeone-else", rotated),
        lambda: vault.open(OWNER, dataclasses.replace(rotated, last4="0000")),
        lambda: KeyVault([MasterKey.from_text(generate_master_key())]).open(OWNER, rotated),
        lambda: pickle.dumps(secret),
    ):
        with pytest.raises((KeyUnreadable, TypeError)) as caught:
            attempt()
        failures.append(caught.value)
        log.exception("failure while handling %r", secret, exc_info=caught.value)
    for failure in failures:
        seen += [str(failure), repr(failure), "".join(traceback.format_exception(failure))]

    assert caplog.records, "the canary run logged nothing: the test would prove nothing"
    assert any(r.name.startswith("tradeleague.keys") for r in caplog.records)
    for text in [*seen, caplog.text]:
        _assert_clean(text)


def test_keys_secret_prints_only_its_mask() -> None:
    """C-9: a Secret's repr, str and format show at most the last 4 characters."""
    secret = Secret(CANARY)
    assert repr(secret) == "Secret('****8a0b')"
    assert str(secret) == f"{secret}" == "****" + CANARY[-4:]
    assert secret.masked() == "****" + CANARY[-4:]
    assert Secret("short") != secret
    assert Secret(CANARY) == secret
    with pytest.raises(TypeError):
        hash(secret)
    with pytest.raises(TypeError, match="not pickled"):
        pickle.dumps(secret)
    with pytest.raises(TypeError):
        Secret(b"bytes")  # type: ignore[arg-type]
