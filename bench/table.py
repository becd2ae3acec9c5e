"""Run every benchmark and print one table; write it to ``bench/RESULTS.md`` with the machine.

Each benchmark runs as its own process (``make bench`` passes the interpreters):
the simulator against its peers (in the bench environment, where vectorbt,
backtesting.py and backtrader are installed), the weights replay by roster size,
start-up and ``stats null``, the round fan-out, the scenario API, the load test,
a sweep on Ray and a standby host's takeover. The table keeps each benchmark's
figure lines, word for word, with the targets the issues set; the full output of
each follows in ``RESULTS.md``. A benchmark that fails or runs
past ``--timeout`` is reported as such; nothing here asserts a speed.

Run: ``.venv/bin/python bench/table.py [--bench-python .venv-bench/bin/python] [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Bench:
    """One benchmark: its script, arguments, the lines to keep, and the target."""

    name: str
    script: str
    args: tuple[str, ...]
    keep: tuple[str, ...]
    target: str
    peers: bool = False


BENCHES = (
    Bench(
        "simulator vs peers",
        "sim_vs_peers.py",
        (),
        ("sparse 50 x 10,000", "dense 20 x 2,000", "batch kernel sparse"),
        "batch kernel >= vectorbt's symbol-bars/s, identical fills",
        peers=True,
    ),
    Bench(
        "weights replay",
        "weights_replay.py",
        ("--agents", "1,100,1000"),
        ("weights replay:",),
        "<= 0.1 ms per added agent-round at 1,000 agents; peak < 500 MB",
    ),
    Bench(
        "whole commands",
        "whole_commands.py",
        ("--agents", "1,1000,10000"),
        ("whole replay weights", "whole verify"),
        "1,000 baselines <= 2.5 s; 10,000 <= 20 s, < 1.5 GB; verify >= 100,000 events/s",
    ),
    Bench(
        "start-up",
        "startup.py",
        ("--repeat", "3"),
        ("startup:",),
        "--help 0.5 s; one-agent replay 1.5 s; stats null 10,000 agents 5 s",
    ),
    Bench(
        "round fan-out",
        "round_fanout.py",
        (),
        ("round wall time", "CPU per turn", "per-call overhead"),
        "round ends within 0.25 s of the slowest answer; CPU per turn < 0.3 ms",
    ),
    Bench(
        "scenario API",
        "api_steps.py",
        (),
        ("one run", "runs"),
        "one run >= 2,000 steps/s; 100 runs >= 5,000 steps/s",
    ),
    Bench(
        "load",
        "load.py",
        ("--seconds", "60"),
        ("/healthz ", "server memory", "  hostile "),
        "/healthz p99 < 100 ms under 100 readers + 200 scenario clients, and while the hostile "
        "corpus is sent (a 4xx each); memory flat",
    ),
    Bench(
        "load on PostgreSQL",
        "load.py",
        (
            *("--store", "postgresql", "--readers", "0", "--clients", "200"),
            *("--seconds", "60", "--hostile", "0"),
        ),
        ("/healthz ", "/metrics ", "server memory", "  step ", "  create "),
        "/healthz and /metrics p99 < 50 ms while 200 scenario clients step on PostgreSQL",
    ),
    Bench(
        "fuzz memory",
        "fuzz_memory.py",
        ("--seconds", "240"),
        ("fuzz memory:",),
        "server RSS within 50 MiB of its start over 4 minutes of schemathesis (every check)",
    ),
    Bench(
        "sweep on Ray",
        "sweep.py",
        ("--cells", "8", "--workers", "2"),
        ("sweep:",),
        "a grid of replays on Ray: faster than one process, byte-equal reports; on a Ray of "
        "two nodes, cells on both and the reports byte-equal to --local's",
    ),
    Bench(
        "standby takeover",
        "failover.py",
        ("--repeat", "5"),
        ("failover:",),
        "a standby leads within seconds of the leader's death (PostgreSQL)",
    ),
)

QUICK_ARGS = {
    "sim_vs_peers.py": ("--quick",),
    "weights_replay.py": ("--agents", "1,30"),
    "whole_commands.py": ("--agents", "1,30"),
    "startup.py": ("--repeat", "1"),
    "round_fanout.py": ("--agents", "50"),
    "api_steps.py": (),
    "load.py": ("--readers", "10", "--clients", "10", "--seconds", "5"),
    "fuzz_memory.py": ("--seconds", "20", "--examples", "3"),
    "sweep.py": ("--cells", "4", "--workers", "2"),
    "failover.py": ("--repeat", "1"),
}


def machine() -> str:
    """Return one line describing this machine: CPU model, cores, memory, OS, Python."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal"):
                memory = f", {int(line.split()[1]) / 1024 / 1024:.1f} GiB RAM"
                break
    except OSError:
        pass
    load = ""
    if hasattr(os, "getloadavg"):
        load = f", load average {os.getloadavg()[0]:.1f} at the start"
    return (
        f"{cpu}, {os.cpu_count()} cores{memory}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}{load}"
    )


def _has_peers(python: str) -> bool:
    probe = subprocess.run(
        [python, "-c", "import backtesting, backtrader, vectorbt"], capture_output=True, check=False
    )
    return probe.returncode == 0


def run(bench: Bench, python: str, timeout: float, quick: bool) -> tuple[str, list[str], float]:
    """Run one benchmark; return (full output, the kept lines, seconds)."""
    args = QUICK_ARGS.get(bench.script, ()) if quick else bench.args
    note = []
    if bench.peers and not _has_peers(python):
        args = (*args, "--engines", "tradeleague,tradeleague-batch,plain-loop")
        note = ["peers (vectorbt, backtesting.py, backtrader) not installed for this interpreter"]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    t0 = time.perf_counter()
    try:
        done = subprocess.run(
            [python, str(ROOT / "bench" / bench.script), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout if isinstance(exc.stdout, str) else ""
        return out, [f"did not finish within {timeout:.0f} s"], time.perf_counter() - t0
    seconds = time.perf_counter() - t0
    out = done.stdout + (f"\n[stderr]\n{done.stderr[-2000:]}" if done.returncode else "")
    kept = [
        line.rstrip() for line in done.stdout.splitlines() if any(k in line for k in bench.keep)
    ]
    kept = note + kept
    if done.returncode:
        kept.append(f"exited {done.returncode}: {done.stderr.strip().splitlines()[-1:]}")
    return out, kept, seconds


def main() -> None:
    """Run the benchmarks, print the table, write RESULTS.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench-python", default=sys.executable)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md")
    args = parser.parse_args()
    described = machine()
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    sections = []
    table = ["| benchmark | figures (this run) | target |", "|---|---|---|"]
    for bench in BENCHES:
        python = args.bench_python if bench.peers else sys.executable
        out, kept, seconds = run(bench, python, args.timeout, args.quick)
        figures = "<br>".join(f"`{k.strip()}`" for k in kept) or "(no figure line)"
        table.append(f"| {bench.name} | {figures} | {bench.target} |")
        sections.append(f"### {bench.name} ({seconds:.0f} s)\n\n```\n{out.strip()}\n```\n")
        print(f"== {bench.name} ({seconds:.0f} s)")
        for line in kept:
            print(f"   {line}")
    text = "\n".join(
        [
            "# Benchmark results",
            "",
            f"Machine: {described}.",
            f"Run: {started}{' (--quick)' if args.quick else ''}. Written by `make bench`"
            " (`bench/table.py`); figures from a loaded machine are pessimistic.",
            "",
            *table,
            "",
            "## Full output",
            "",
            *sections,
        ]
    )
    args.out.write_text(text + "\n", encoding="utf-8")
    print(f"\nmachine: {described}\nwritten to {args.out}")


if __name__ == "__main__":
    main()
