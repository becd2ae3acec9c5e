"""Every command block of the README and docs/ runs as written, and leaves the checkout clean.

The blocks are run in a scratch copy of the checkout (its tracked files, the
project's venv, ``../shared/data`` beside it), from its root, one after
another, after the demo, each as its own ``bash -e``. A block that needs a key,
the internet, or runs for minutes says so right above it with
``<!-- readme: not run (WHY) -->``; every other block runs. A block is a
command block when its first word is a command (``tradeleague``,
``.venv/bin/...``, ``python``, ``make``); data shown in a block (JSON, TOML)
is not run. After the blocks, ``git status --porcelain`` of the copy is empty:
nothing a documented command writes litters the checkout.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = (
    "README.md",
    "docs/architecture.md",
    "docs/scaling.md",
    "docs/ratings.md",
    "docs/audit.md",
    "docs/decay.md",
)
MARKER = re.compile(r"<!--\s*readme:\s*not run\s*\((?P<why>[^)]*\S[^)]*)\)\s*-->")
"""The mark that keeps a block from being run; the reason in brackets is required."""
_COMMANDS = ("tradeleague", ".venv/bin/", "python", "make")
_SHELL_LANGUAGES = ("", "sh", "bash", "shell", "console")
_BLOCK_S = int(os.environ.get("README_BLOCK_S", "120"))
"""No README block may run longer than this; the whole test stays far below it."""
_DEMO = ("tradeleague", "demo", "--no-house-model", "--days", "5", "--rounds", "3")
"""The demo the blocks follow: `make demo` without the house model (minutes on two cores)."""


@dataclass(frozen=True)
class Block:
    """One command block of a page: where it starts, its text, and why it is not run."""

    page: str
    line: int
    text: str
    not_run: str | None

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def command_blocks(page: str, text: str) -> list[Block]:
    """Return the command blocks of ``text`` (fenced and indented), each with its marker.

    Raises ValueError on a marker with no reason, or one with no command block under it.
    """
    lines = text.splitlines()
    blocks: list[Block] = []
    marker: tuple[int, str] | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        start = index
        body: list[str] | None = None
        if line.startswith("```"):
            language = line[3:].strip()
            end = index + 1
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            body = lines[index + 1 : end] if language in _SHELL_LANGUAGES else []
            index = end + 1
        elif line.startswith("    ") and (index == 0 or _opens(lines[index - 1])):
            end = index
            while end < len(lines) and (lines[end].startswith("    ") or not lines[end].strip()):
                end += 1
            body = [entry[4:] for entry in lines[index:end]]
            index = end
        else:
            if "readme:" in line and "<!--" in line:
                found = MARKER.search(line)
                if found is None:
                    raise ValueError(f"{page}:{index + 1}: a not-run marker needs a reason")
                marker = (index + 1, found.group("why").strip())
            elif line.strip() and marker is not None:
                raise ValueError(f"{page}:{marker[0]}: the not-run marker is not above a block")
            index += 1
            continue
        code = "\n".join(body).strip()
        if _is_command(code):
            why = marker[1] if marker is not None else None
            blocks.append(Block(page, start + 1, code, why))
        elif marker is not None:
            raise ValueError(f"{page}:{marker[0]}: the not-run marker is above no command block")
        marker = None
    return blocks


def _opens(before: str) -> bool:
    """Whether an indented line after ``before`` starts a code block (not a list's text)."""
    return not before.strip() or before.startswith("#")


def _is_command(code: str) -> bool:
    words = [w for w in code.split() if not re.fullmatch(r"[A-Z_]+=\S*", w)]
    return bool(words) and words[0].startswith(_COMMANDS)


def all_blocks() -> list[Block]:
    """Return the command blocks of every page, in page order."""
    found: list[Block] = []
    for page in PAGES:
        found.extend(command_blocks(page, (ROOT / page).read_text(encoding="utf-8")))
    return found


def scratch_checkout(tmp: Path, shared: Path) -> Path:
    """Copy the tracked files of this checkout to ``tmp/checkout``; a git repo, committed.

    ``tmp/shared`` points at ``shared`` (the README's ``../shared/data``) and
    ``.venv`` at this checkout's venv.
    """
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    checkout = tmp / "checkout"
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if not source.is_file() or name.startswith("tests/"):
            continue
        target = checkout / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    (checkout / ".venv").symlink_to((ROOT / ".venv").resolve())
    (tmp / "shared").symlink_to(shared.resolve())
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=checkout, check=True)
    subprocess.run([*git, "add", "-A"], cwd=checkout, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "scratch"], cwd=checkout, check=True)
    return checkout


def block_environment(checkout: Path) -> dict[str, str]:
    """The environment a reader has after `make demo`: the venv's commands on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRADELEAGUE_", "PYTEST"))}
    env["PATH"] = f"{checkout / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(checkout / "src")  # the shared venv's install points elsewhere
    env["COLUMNS"] = "120"
    return env


def run_block(
    block: Block, checkout: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run ``block`` with bash from the checkout's root; return what it did (124: too long)."""
    argv = ["bash", "-e", "-o", "pipefail", "-c", block.text]
    try:
        return subprocess.run(
            argv, cwd=checkout, env=env, capture_output=True, text=True, timeout=_BLOCK_S
        )
    except subprocess.TimeoutExpired as exc:
        said = "".join(
            part.decode(errors="replace") if isinstance(part, bytes) else part or ""
            for part in (exc.stdout, exc.stderr)
        )
        return subprocess.CompletedProcess(argv, 124, said, f"ran over {_BLOCK_S} s")


def porcelain(checkout: Path) -> str:
    """What `git status --porcelain` says of the scratch checkout."""
    return subprocess.run(
        ["git", "status", "--porcelain"], cwd=checkout, capture_output=True, text=True, check=True
    ).stdout


def run_all(blocks: list[Block], checkout: Path) -> list[str]:
    """Run the demo, then every block not marked; return one line per failure."""
    env = block_environment(checkout)
    failures: list[str] = []
    demo = subprocess.run(
        list(_DEMO), cwd=checkout, env=env, capture_output=True, text=True, timeout=_BLOCK_S
    )
    if demo.returncode != 0:
        failures.append(f"the demo exited {demo.returncode}: {demo.stdout[-2000:]}{demo.stderr}")
    for block in blocks:
        if block.not_run is not None:
            continue
        done = run_block(block, checkout, env)
        if done.returncode != 0:
            tail = (done.stdout + done.stderr)[-3000:]
            failures.append(f"{block.name} exited {done.returncode}:\n{block.text}\n{tail}")
    return failures


@pytest.mark.slow
def test_every_readme_block_runs_and_leaves_the_checkout_clean(
    tmp_path: Path, shared_data: Path
) -> None:
    """Each command block of the README and docs/ exits 0 as written; `git status` stays empty."""
    checkout = scratch_checkout(tmp_path, shared_data.parent)
    failures = run_all(all_blocks(), checkout)
    assert not failures, "\n\n".join(failures)
    assert porcelain(checkout) == "", "the README's commands left files in the checkout"


def test_a_planted_broken_block_fails(tmp_path: Path) -> None:
    """A README block that fails is caught: the runner names it by page and line, the rest pass."""
    readme = "# t\n\n    tradeleague formats\n\n```sh\ntradeleague no-such-command\n```\n"
    blocks = command_blocks("README.md", readme)
    assert [b.line for b in blocks] == [3, 5]
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / ".venv").symlink_to((ROOT / ".venv").resolve())
    (checkout / "src").symlink_to(ROOT / "src")
    failures = run_all(blocks, checkout)
    assert len(failures) == 1
    assert failures[0].startswith("README.md:5 exited 2:\ntradeleague no-such-command")


def test_a_marked_block_is_not_run_and_a_marker_needs_a_reason() -> None:
    """`<!-- readme: not run (WHY) -->` above a block keeps it from running; WHY is required."""
    marked = "<!-- readme: not run (needs an OpenRouter key) -->\n\n    tradeleague replay x\n"
    (block,) = command_blocks("README.md", marked)
    assert block.not_run == "needs an OpenRouter key"
    with pytest.raises(ValueError, match="needs a reason"):
        command_blocks("README.md", "<!-- readme: not run () -->\n\n    tradeleague x\n")
    with pytest.raises(ValueError, match="above no command block"):
        command_blocks("README.md", '<!-- readme: not run (x) -->\n\n    {"a": 1}\n')


def test_data_blocks_are_not_commands() -> None:
    """JSON and TOML shown in a page are not run; python under a `tradeleague` call is."""
    page = '```toml\nseeds = [0]\n```\n\n    {"targets": {}}\n\nThen:\n\n'
    page += "    python -m tradeleague x\n"
    assert [b.text for b in command_blocks("README.md", page)] == ["python -m tradeleague x"]


if __name__ == "__main__":  # time each block: python tests/test_readme_runs.py SCRATCH
    import time

    scratch = Path(sys.argv[1])
    scratch.mkdir(parents=True)
    copy = scratch_checkout(scratch, ROOT.parent / "shared")
    environment = block_environment(copy)
    began = time.monotonic()
    print(subprocess.run(list(_DEMO), cwd=copy, env=environment, check=False).returncode)
    print(f"demo {time.monotonic() - began:.1f} s")
    for each in all_blocks():
        began = time.monotonic()
        if each.not_run is None:
            result = run_block(each, copy, environment)
            print(f"{each.name} rc={result.returncode} {time.monotonic() - began:.1f} s")
            if result.returncode:
                print((result.stdout + result.stderr)[-1500:])
        else:
            print(f"{each.name} not run: {each.not_run}")
    print(porcelain(copy))


@pytest.mark.slow
def test_the_readme_mirror_example_mirrors_an_agent_that_trades(
    tmp_path: Path, shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's `inverse:` example, as written: the mirror trades, long where its source
    went short (T-AGT-1), from the cycle it joins."""
    import json

    from typer.testing import CliRunner

    from tradeleague.cli import app

    (block,) = [b for b in all_blocks() if "inverse:" in b.text]
    argv = block.text.replace("\\\n", " ").split()
    assert argv[:3] == ["tradeleague", "replay", "thesis"]
    (tmp_path / "checkout").mkdir()
    (tmp_path / "shared").symlink_to(shared_data.parent.resolve())
    monkeypatch.chdir(tmp_path / "checkout")
    done = CliRunner().invoke(app, [*argv[1:], "--db", "sqlite:///t.db"])
    assert done.exit_code == 0, done.output
    report = json.loads((tmp_path / "checkout" / "REPORT.json").read_text(encoding="utf-8"))
    agents = {a["name"]: a for a in report["agents"]}
    mirror = agents["mirror"]
    source = agents[mirror["spec"].split(":", 1)[1]]
    assert mirror["counts"]["trades"] > 0
    assert source["counts"]["trades"] > 0
    opened = {
        e["cycle"]: [d.get("action") for d in json.loads(e["raw_answer"])["decisions"]]
        for e in source["entries"]
        if e.get("raw_answer")
    }
    swapped = {"open_long": "open_short", "open_short": "open_long"}
    mirrored = 0
    for entry in mirror["entries"]:
        if not entry.get("raw_answer") or entry["cycle"] not in opened:
            continue
        actions = [d.get("action") for d in json.loads(entry["raw_answer"])["decisions"]]
        assert actions == [swapped.get(a, a) for a in opened[entry["cycle"]]]
        mirrored += any(a in swapped for a in actions)
    assert mirrored > 0
