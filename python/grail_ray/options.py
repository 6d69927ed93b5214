"""grail's command line, read as grail (getopt_long) reads it, as far as
grail-ray needs: which arguments are options and their values, which are
the patterns and which the paths.

The tables mirror grail's own (`src/cli/args.rs`); a test checks them
against `grail --help`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

NO, REQ, OPT = "no", "required", "optional"

#: Short options that take a value; every other letter grail knows is a flag.
SHORT_ARG = set("ABCDNdefmt")
SHORT_FLAG = set("EFGHILPRTUVZabchilnoqrsuvwxyz")

#: GNU grep's long options, in getopt's order: name -> (argument, id).
GREP_LONG = [
    ("basic-regexp", NO, "G"),
    ("extended-regexp", NO, "E"),
    ("fixed-regexp", NO, "F"),
    ("fixed-strings", NO, "F"),
    ("perl-regexp", NO, "P"),
    ("after-context", REQ, "A"),
    ("before-context", REQ, "B"),
    ("binary-files", REQ, "binary-files"),
    ("byte-offset", NO, "b"),
    ("context", REQ, "C"),
    ("color", OPT, "color"),
    ("colour", OPT, "color"),
    ("count", NO, "c"),
    ("devices", REQ, "D"),
    ("directories", REQ, "d"),
    ("dereference-recursive", NO, "R"),
    ("exclude", REQ, "exclude"),
    ("exclude-from", REQ, "exclude-from"),
    ("exclude-dir", REQ, "exclude-dir"),
    ("file", REQ, "f"),
    ("files-with-matches", NO, "l"),
    ("files-without-match", NO, "L"),
    ("group-separator", REQ, "group-separator"),
    ("help", NO, "help"),
    ("include", REQ, "include"),
    ("ignore-case", NO, "i"),
    ("no-ignore-case", NO, "no-ignore-case"),
    ("initial-tab", NO, "T"),
    ("label", REQ, "label"),
    ("line-buffered", NO, "line-buffered"),
    ("line-number", NO, "n"),
    ("line-regexp", NO, "x"),
    ("max-count", REQ, "m"),
    ("no-filename", NO, "h"),
    ("no-group-separator", NO, "no-group-separator"),
    ("no-messages", NO, "s"),
    ("null", NO, "Z"),
    ("null-data", NO, "z"),
    ("only-matching", NO, "o"),
    ("quiet", NO, "q"),
    ("recursive", NO, "r"),
    ("regexp", REQ, "e"),
    ("invert-match", NO, "v"),
    ("silent", NO, "q"),
    ("text", NO, "a"),
    ("binary", NO, "U"),
    ("unix-byte-offsets", NO, "u"),
    ("version", NO, "V"),
    ("with-filename", NO, "H"),
    ("word-regexp", NO, "w"),
]

#: grail's own long options.
GRAIL_LONG = [
    ("not", REQ, "N"),
    ("not-E", REQ, "not-E"),
    ("not-F", REQ, "not-F"),
    ("not-G", REQ, "not-G"),
    ("tail", REQ, "t"),
    ("head", REQ, "head"),
    ("sh", REQ, "sh"),
    ("explain", NO, "explain"),
    ("sh-fallback", NO, "sh-fallback"),
    ("threads", REQ, "threads"),
    ("chunk-size", REQ, "chunk-size"),
    ("json", NO, "json"),
    ("stats", NO, "stats"),
    ("since", REQ, "since"),
    ("before", REQ, "before"),
    ("time-format", REQ, "time-format"),
    ("from-byte", REQ, "from-byte"),
    ("follow", NO, "follow"),
    ("until", REQ, "until"),
    ("pid", REQ, "pid"),
    ("timeout", REQ, "timeout"),
    ("no-decompress", NO, "no-decompress"),
    ("rotated", REQ, "rotated"),
    ("merge", NO, "merge"),
    ("no-line-number", NO, "no-line-number"),
]

#: grail-ray's own options.
RAY_LONG = [
    ("address", REQ, "address"),
    ("nodes", REQ, "nodes"),
    ("grail", REQ, "grail"),
    ("node-timeout", REQ, "node-timeout"),
]

#: Options grail-ray cannot give one exact cluster-wide answer for, with why.
REFUSED = {
    "o": "-o (each node's tail counts lines, not matches)",
    "T": "-T (one cluster timeline has no single tab stop)",
    "Z": "-Z",
    "z": "-z (--merge reads newline-ended lines)",
    "A": "context lines (-A, --merge refuses them)",
    "B": "context lines (-B, --merge refuses them)",
    "C": "context lines (-C, --merge refuses them)",
    "label": "--label (grail-ray reads files, not standard input)",
    "sh": "--sh (give the grep options themselves)",
    "explain": "--explain",
    "sh-fallback": "--sh-fallback",
    "follow": "--follow",
    "until": "--until (it implies --follow)",
    "pid": "--pid (it implies --follow)",
    "timeout": "--timeout (grail-ray has --node-timeout)",
    "stats": "--stats (--json has per-node figures)",
    "from-byte": "--from-byte (offsets are per file)",
    "merge": "--merge (grail-ray always merges)",
    "group-separator": "--group-separator (no context lines)",
    "no-group-separator": "--no-group-separator (no context lines)",
}


class UsageError(Exception):
    """A command line grail-ray cannot read."""


@dataclass
class Parsed:
    """One command line, read."""

    #: (id, value or None), in order, grail's options only.
    options: list = field(default_factory=list)
    #: grail-ray's own options: id -> value.
    ray: dict = field(default_factory=dict)
    #: Arguments that are not options, in order (the pattern first unless
    #: -e or -f gave patterns).
    operands: list = field(default_factory=list)

    def has(self, oid: str) -> bool:
        return any(o == oid for o, _ in self.options)

    def last(self, oid: str):
        v = None
        for o, val in self.options:
            if o == oid:
                v = val
        return v

    def values(self, oid: str) -> list:
        return [v for o, v in self.options if o == oid]

    @property
    def patterns_given(self) -> bool:
        return self.has("e") or self.has("f")

    @property
    def pattern_operand(self):
        if self.patterns_given or not self.operands:
            return None
        return self.operands[0]

    @property
    def paths(self) -> list:
        return self.operands if self.patterns_given else self.operands[1:]


def _resolve(typed: str):
    """The long option `typed` names (an exact name or a unique prefix, the
    tables searched in grail's order)."""
    tables = [GREP_LONG, GRAIL_LONG, RAY_LONG]
    for t in tables:
        for name, kind, oid in t:
            if name == typed:
                return name, kind, oid
    for t in tables:
        cands = [e for e in t if e[0].startswith(typed)]
        if not cands:
            continue
        first = cands[0]
        others = [e for e in cands[1:] if (e[1], e[2]) != (first[1], first[2])]
        if others:
            names = " ".join(f"'--{e[0]}'" for e in [first, *others])
            raise UsageError(f"option '--{typed}' is ambiguous; possibilities: {names}")
        return first
    raise UsageError(f"unrecognized option '--{typed}'")


RAY_IDS = {e[2] for e in RAY_LONG}


def parse(argv: list[str]) -> Parsed:
    """Read `argv` as getopt_long with permutation does (options may follow
    operands; `--` ends them)."""
    p = Parsed()
    i = 0

    def put(oid, val):
        if oid in RAY_IDS:
            p.ray[oid] = val
        else:
            p.options.append((oid, val))

    while i < len(argv):
        a = argv[i]
        i += 1
        if a == "--":
            p.operands.extend(argv[i:])
            break
        if a.startswith("--"):
            name, eq, val = a[2:].partition("=")
            _, kind, oid = _resolve(name)
            if kind == NO:
                if eq:
                    raise UsageError(f"option '--{name}' doesn't allow an argument")
                put(oid, None)
            elif kind == REQ:
                if not eq:
                    if i >= len(argv):
                        raise UsageError(f"option '--{name}' requires an argument")
                    val = argv[i]
                    i += 1
                put(oid, val)
            else:
                put(oid, val if eq else None)
            continue
        if a.startswith("-") and len(a) > 1:
            j = 1
            while j < len(a):
                c = a[j]
                if c.isdigit():
                    # -NUM: context.
                    k = j
                    while k < len(a) and a[k].isdigit():
                        k += 1
                    put("C", a[j:k])
                    j = k
                    continue
                if c in SHORT_ARG:
                    val = a[j + 1 :]
                    if not val:
                        if i >= len(argv):
                            raise UsageError(f"option requires an argument -- '{c}'")
                        val = argv[i]
                        i += 1
                    put(c, val)
                    break
                if c in SHORT_FLAG:
                    put({"y": "i"}.get(c, c), None)
                    j += 1
                    continue
                raise UsageError(f"invalid option -- '{c}'")
            continue
        p.operands.append(a)
    return p


LONG_OF = {}
for _name, _kind, _oid in GREP_LONG + GRAIL_LONG:
    LONG_OF.setdefault(_oid, (_name, _kind))


def render(oid: str, val) -> list[str]:
    """One option as arguments grail reads back the same."""
    if len(oid) == 1:
        return [f"-{oid}"] if val is None else [f"-{oid}", val]
    name, kind = LONG_OF[oid]
    if val is None:
        return [f"--{name}"]
    return [f"--{name}={val}"]
