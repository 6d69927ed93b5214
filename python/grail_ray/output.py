"""Printing the cluster's answer as grep prints lines: `NODE:FILE:` before
each line, with `-n`/`-b` and grep's colours (`GREP_COLORS`)."""

from __future__ import annotations

import base64
import os

from .options import UsageError

DEFAULTS = {
    "ms": "01;31",
    "fn": "35",
    "ln": "32",
    "bn": "32",
    "se": "36",
}


class Colors:
    """grep's colours, or none."""

    def __init__(self, on: bool, spec: str | None = None):
        self.on = on
        self.c = dict(DEFAULTS)
        self.ne = False
        for item in (spec or "").split(":"):
            if not item:
                continue
            key, eq, val = item.partition("=")
            if key == "ne":
                self.ne = True
            elif key == "mt" and eq:
                self.c["ms"] = val
            elif key in ("ms", "fn", "ln", "bn", "se") and eq:
                self.c[key] = val
            elif key == "mc":
                pass  # context lines: there are none
            elif key in ("sl", "cx") and val:
                raise UsageError(f"GREP_COLORS {key}= is not supported by grail-ray")
            elif key == "rv":
                raise UsageError("GREP_COLORS rv is not supported by grail-ray")

    def paint(self, key: str, text: bytes) -> bytes:
        sgr = self.c.get(key, "")
        if not self.on or not sgr:
            return text
        el = b"" if self.ne else b"\x1b[K"
        return b"\x1b[" + sgr.encode() + b"m" + el + text + b"\x1b[m" + el


def colors_for(when: str | None, given: bool) -> Colors:
    """`--color[=WHEN]` as grep reads it (no WHEN: auto)."""
    if not given or when in ("never", "no", "none"):
        return Colors(False)
    if when in (None, "auto", "tty", "if-tty"):
        on = os.isatty(1) and os.environ.get("TERM", "dumb") != "dumb"
    elif when in ("always", "yes", "force"):
        on = True
    else:
        raise UsageError(f"invalid argument '{when}' for '--color'")
    return Colors(on, os.environ.get("GREP_COLORS"))


def text_of(rec: dict) -> bytes:
    if "text" in rec:
        return rec["text"].encode("utf-8", "surrogateescape")
    return base64.b64decode(rec["bytes_base64"])


class Printer:
    """Lines and counts as `grep -H` prints them, each after its node."""

    def __init__(self, colors: Colors, names: bool, numbers: bool, offsets: bool):
        self.colors = colors
        self.names = names
        self.numbers = numbers
        self.offsets = offsets

    def _sep(self) -> bytes:
        return self.colors.paint("se", b":")

    def prefix(self, node: str, path: str | None) -> bytes:
        out = self.colors.paint("fn", node.encode()) + self._sep()
        if path is not None and self.names:
            out += self.colors.paint("fn", os.fsencode(path)) + self._sep()
        return out

    def line(self, node: str, rec: dict) -> bytes:
        out = self.prefix(node, rec["path"])
        if self.numbers:
            out += self.colors.paint("ln", str(rec["line_number"]).encode()) + self._sep()
        if self.offsets:
            out += self.colors.paint("bn", str(rec["byte_offset"]).encode()) + self._sep()
        text = text_of(rec)
        if self.colors.on and rec.get("matches"):
            pieces, at = [], 0
            for s, e in rec["matches"]:
                if e <= s or s < at:
                    continue
                pieces += [text[at:s], self.colors.paint("ms", text[s:e])]
                at = e
            pieces.append(text[at:])
            text = b"".join(pieces)
        return out + text + b"\n"

    def count(self, node: str, path: str, n: int) -> bytes:
        return self.prefix(node, path) + str(n).encode() + b"\n"

    def name(self, node: str, path: str) -> bytes:
        return (
            self.colors.paint("fn", node.encode())
            + self._sep()
            + self.colors.paint("fn", os.fsencode(path))
            + b"\n"
        )
