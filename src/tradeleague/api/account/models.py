"""Request bodies of the account routes, bounded before anything reads them.

A format's desk declares its own bodies the same way (`CLOSED`).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from tradeleague.api.account.signin import MAX_MESSAGE_CHARS

__all__ = ["CLOSED", "LoginIn"]

CLOSED = ConfigDict(extra="forbid")
"""A request body with no field beyond its own."""


class LoginIn(BaseModel):
    """A signed EIP-4361 message."""

    model_config = CLOSED
    message: Annotated[str, Field(max_length=MAX_MESSAGE_CHARS)]
    signature: Annotated[str, Field(max_length=200)]
