"""grail-ray's reading of grail's command line."""

from __future__ import annotations

import re
import subprocess

import pytest
from conftest import grail_bin

from grail_ray.options import GRAIL_LONG, GREP_LONG, NO, REQ, SHORT_ARG, SHORT_FLAG, UsageError, parse


def test_tables_agree_with_grail_help():
    text = subprocess.run([grail_bin(), "--help"], capture_output=True, text=True).stdout
    known = {name: kind for name, kind, _ in GREP_LONG + GRAIL_LONG}
    seen = set()
    for line in text.splitlines():
        if not re.match(r"^\s+-", line):
            continue
        items = []
        for tok in line.split():
            if not tok.startswith("-"):
                break
            items.append(tok.rstrip(","))
        spec = ", ".join(items)
        for item in items:
            m = re.fullmatch(r"--([a-zA-Z][a-zA-Z-]*)(\[=\w+\]|=\S+)?", item)
            if m:
                name, arg = m.groups()
                assert name in known, name
                seen.add(name)
                want = NO if arg is None else (REQ if arg.startswith("=") else "optional")
                assert known[name] == want, name
                continue
            m = re.fullmatch(r"-([A-Za-z])", item)
            if m:
                c = m.group(1)
                takes = re.search(r"--[a-z-]+=", spec) is not None and spec.startswith(item)
                assert (c in SHORT_ARG) == takes, c
                assert c in SHORT_ARG | SHORT_FLAG, c
    # Every long option of grail's tables is in its --help.
    aliases = {"fixed-regexp", "silent", "binary", "unix-byte-offsets", "not-E", "not-F", "not-G"}
    assert set(known) - seen <= aliases, set(known) - seen
    assert len(seen) > 60


def test_parse_like_getopt():
    p = parse(["-inE", "err|warn", "-t20", "f1", "--not=x", "f2", "--", "-f3"])
    assert p.options == [("i", None), ("n", None), ("E", None), ("t", "20"), ("N", "x")]
    assert p.pattern_operand == "err|warn" and p.paths == ["f1", "f2", "-f3"]
    p = parse(["-in", "-E", "-e", "a", "--tail", "5", "f1", "-c", "f2", "--", "-x"])
    assert p.options == [("i", None), ("n", None), ("E", None), ("e", "a"), ("t", "5"), ("c", None)]
    assert p.operands == ["f1", "f2", "-x"] and p.paths == ["f1", "f2", "-x"]
    p = parse(["--ext", "--nodes=all", "pat", "f", "-5"])
    assert p.options == [("E", None), ("C", "5")] and p.ray == {"nodes": "all"}
    assert p.pattern_operand == "pat" and p.paths == ["f"]
    with pytest.raises(UsageError, match="ambiguous"):
        parse(["--node=1", "x", "f"])
    with pytest.raises(UsageError, match="unrecognized"):
        parse(["--bogus", "x"])
