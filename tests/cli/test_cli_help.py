"""Help that teaches (issue 11): examples, one baseline style, no rule ids, no markup lost."""

from __future__ import annotations

import re
from typing import Any

from typer.testing import CliRunner

from tradeleague.cli import app, command_tree

_RULE_ID = re.compile(r"\b(?:[A-Z]{1,2}-[A-Z]{2,5}|C|ST)-\d+\b")


def _leaves() -> list[list[str]]:
    found: list[list[str]] = []

    def walk(command: object, path: list[str]) -> None:
        children = getattr(command, "commands", None)
        if children:
            for name, child in children.items():
                walk(child, [*path, name])
        else:
            found.append(path)

    walk(command_tree(), [])
    return found


def _help(path: list[str]) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "250"}, color=False)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_every_command_shows_an_example_and_no_rule_ids() -> None:
    """Each command's help has an example; rule ids stay in code, not in help (issue 11)."""
    problems = []
    for path in _leaves():
        text = _help(path)
        if "Example" not in text and "example" not in text:
            problems.append(f"{' '.join(path)}: no example")
        ids = sorted(set(_RULE_ID.findall(text)))
        if ids:
            problems.append(f"{' '.join(path)}: rule ids {ids}")
        if "``" in text:
            problems.append(f"{' '.join(path)}: RST backquotes")
    assert problems == []


def test_one_naming_style_for_baselines() -> None:
    """Baselines are written with hyphens in every help (equal-weight, coin-flip)."""
    for path in (["replay", "weights"], ["replay", "direction"]):
        text = _help(path)
        assert "coin-flip" in text
        assert "coin_flip" not in text
        assert "equal_weight" not in text


def test_bracketed_extras_are_not_swallowed_as_markup() -> None:
    """``tradeleague[local]`` shows whole in the demo's help."""
    assert "tradeleague[local]" in _help(["demo"])


_NO_DEFAULT = {
    # options that are off, a filter or one of two alternatives when left out: no default to say
    "--out", "--http", "--agent", "--round", "--join", "--slippage", "--owner-endpoint",
    "--universe-from", "--universe-season", "--replay-answers", "--checkpoint", "--signer",
    "--feeds", "--market", "--config", "--from", "--to",
}  # fmt: skip


def test_every_option_says_its_default() -> None:
    """An option left out takes a default; the help says which (issue 11: the defaults said).

    Typer prints ``[default: X]`` for a real default; an option whose default is
    ``None`` must say in words what leaving it out does, unless leaving it out
    just turns something off (``_NO_DEFAULT``).
    """
    missing = []
    for path in _leaves():
        command: Any = command_tree()
        for name in path:
            command = command.commands[name]
        for param in command.params:
            if param.param_type_name != "option" or param.required or param.is_flag:
                continue
            if param.default not in (None, (), []) or param.opts[0] in _NO_DEFAULT:
                continue
            if "default" not in (param.help or "").lower():
                missing.append(f"{' '.join(path)} {param.opts[0]}")
    assert missing == []
