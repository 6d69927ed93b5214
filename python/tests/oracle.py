"""Generated per-rank logs and an independent merged timeline: lines
selected by GNU grep, each line's time read here (its own stamp, else the
nearest stamped line above it, never earlier than a stamp above it), all
nodes' lines sorted by (time, node, file, line)."""

from __future__ import annotations

import calendar
import os
import random
import re
import subprocess

STAMP = re.compile(rb"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{3})Z ")
START = calendar.timegm((2024, 3, 1, 12, 0, 0))


def write_rank_log(path: str, seed: int, lines: int = 6000) -> None:
    """A rank's log: a banner before the first stamp, INFO/WARNING/ERROR
    lines every 0-30 ms (ties across ranks), 3% of stamps up to 1.5 s
    early, and tracebacks whose lines carry no stamp."""
    rnd = random.Random(seed)
    t = START * 1000
    out = [b"vLLM rank starting (no timestamp yet)", b"  config: tp=8 pp=2"]
    n = 0
    while n < lines:
        t += rnd.choice([0, 0, 1, 5, 10, 30])
        shown = t - rnd.randint(0, 1500) if rnd.random() < 0.03 else t
        s, ms = divmod(shown, 1000)
        y, mo, d, hh, mm, ss = __import__("time").gmtime(s)[:6]
        stamp = f"{y:04d}-{mo:02d}-{d:02d}T{hh:02d}:{mm:02d}:{ss:02d}.{ms:03d}Z"
        r = rnd.random()
        if r < 0.06:
            out.append(f"{stamp} ERROR worker {seed} step {n} failed".encode())
            out.append(b"Traceback (most recent call last):")
            for k in range(rnd.randint(1, 4)):
                out.append(f'  File "/opt/vllm/model_{k}.py", line {rnd.randint(1, 900)}, in forward'.encode())
            err = rnd.choice(["RuntimeError: CUDA error: out of memory", "ValueError: bad shape", "NCCLError: timeout"])
            out.append(err.encode())
            n += 4
        elif r < 0.10:
            out.append(f"{stamp} WARNING rank {seed} NCCL retry {n}".encode())
        else:
            out.append(f"{stamp} INFO rank {seed} step {n} ok loss={rnd.random():.4f}".encode())
        n += 1
    with open(path, "wb") as f:
        f.write(b"\n".join(out) + b"\n")


def key_of(line: bytes):
    m = STAMP.match(line)
    if not m:
        return None
    y, mo, d, hh, mm, ss, ms = (int(g) for g in m.groups())
    return (calendar.timegm((y, mo, d, hh, mm, ss)), ms * 1_000_000)


def selected(path: str, grep_args: list[str], excludes: list[bytes]) -> list[int]:
    """Line numbers (1-based) GNU grep selects, less those with an exclude."""
    r = subprocess.run(
        ["grep", "-n", *grep_args, "--", path], capture_output=True, env={**os.environ, "LC_ALL": "C"}
    )
    assert r.returncode in (0, 1), r.stderr
    nums = []
    for line in r.stdout.split(b"\n"):
        if not line:
            continue
        num, _, text = line.partition(b":")
        if any(x in text for x in excludes):
            continue
        nums.append(int(num))
    return nums


def timeline(nodes: list, grep_args: list[str], excludes: list[bytes] = (), numbers=False) -> list[bytes]:
    """`nodes`: [(label, [path, ...]), ...] in output order. The printed
    lines `LABEL:PATH:[N:]TEXT`."""
    recs = []
    for k, (label, paths) in enumerate(nodes):
        for fi, path in enumerate(paths):
            with open(path, "rb") as f:
                lines = f.read().split(b"\n")
            if lines and lines[-1] == b"":
                lines.pop()
            keys, cur = [], None
            for line in lines:
                s = key_of(line)
                if s is not None and (cur is None or s > cur):
                    cur = s
                keys.append(cur)
            for num in selected(path, grep_args, list(excludes)):
                key = keys[num - 1]
                order = (0, 0, 0) if key is None else (1, *key)
                text = lines[num - 1]
                shown = f"{label}:{path}:".encode() + (f"{num}:".encode() if numbers else b"") + text
                recs.append((order, k, fi, num, shown))
    recs.sort(key=lambda r: r[:4])
    return [r[4] for r in recs]
