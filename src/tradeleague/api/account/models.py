"""Request bodies of the account routes, bounded before anything reads them."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from tradeleague.api.account.owners import MAX_KEY_CHARS, MAX_NAME_CHARS, MAX_PROMPT_CHARS
from tradeleague.api.account.signin import MAX_MESSAGE_CHARS
from tradeleague.formats.weights import Division

__all__ = ["AgentIn", "KeyIn", "LoginIn", "PromptIn"]

_CLOSED = ConfigDict(extra="forbid")


class LoginIn(BaseModel):
    """A signed EIP-4361 message."""

    model_config = _CLOSED
    message: Annotated[str, Field(max_length=MAX_MESSAGE_CHARS)]
    signature: Annotated[str, Field(max_length=200)]


class AgentIn(BaseModel):
    """A new weights agent: Open (the house model) or Pro (the owner's model and key)."""

    model_config = _CLOSED
    name: Annotated[str, Field(max_length=MAX_NAME_CHARS * 4)]
    division: Division
    prompt: Annotated[str, Field(max_length=MAX_PROMPT_CHARS * 4)]
    model: Annotated[str | None, Field(max_length=300, description="Pro: openai:MODEL@URL.")] = None
    key: Annotated[
        str | None, Field(max_length=MAX_KEY_CHARS, description="Pro: your model key.")
    ] = None


class PromptIn(BaseModel):
    """The agent's new prompt."""

    model_config = _CLOSED
    prompt: Annotated[str, Field(max_length=MAX_PROMPT_CHARS * 4)]


class KeyIn(BaseModel):
    """A Pro agent's replacement model key."""

    model_config = _CLOSED
    key: Annotated[str, Field(max_length=MAX_KEY_CHARS)]
