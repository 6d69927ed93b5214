"""The `grail-ray` command."""

from __future__ import annotations

import json
import os
import signal
import sys

from . import __version__
from .cluster import Query, run_query, summary
from .options import UsageError
from .output import Printer, colors_for

USAGE = """\
Usage: grail-ray [--address ADDR] [--nodes all|ID-PREFIX,...] [--grail PATH]
                 [--node-timeout DUR] [grail's options...] PATTERNS PATH...

Search every node of a Ray cluster with grail and print one timeline: the
selected lines of all nodes merged by timestamp (as grail --merge), each
after NODE:FILE: (NODE: the node's IP, or its short id where IPs repeat).

  --address=ADDR        the cluster (default: RAY_ADDRESS, else the local one)
  --nodes=LIST          all (default), or node-id prefixes, IPs or host names
  --grail=PATH          the grail binary on the nodes (default: grail on PATH;
                        a node without one gets this machine's, cached there)
  --node-timeout=DUR    give up on a node after DUR (30s, 5m, 250ms): its
                        lines are missing, it is named, the exit status is 2

PATHs are expanded on each node: globs (quote them), and {node_id},
{node_ip}, {hostname}. -t N is the last N lines of the cluster's timeline;
-c, -l and -L print per node and file; --json adds "node" to each record
and ends with a summary of each node. A node that fails is named on stderr,
the others' answer is printed, and the exit status is 2.
"""


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--help" in argv:
        sys.stdout.write(USAGE)
        return 0
    if argv in (["-V"], ["--version"]):
        sys.stdout.write(f"grail-ray {__version__}\n")
        return 0
    try:
        q = Query(argv)
        colors = colors_for(q.color_when, q.color_given)
    except UsageError as e:
        sys.stderr.write(f"grail-ray: {e}\n{USAGE.splitlines()[0]}\n")
        return 2
    refused = q.validate()
    if refused:
        sys.stderr.write(refused + "\n")
        return 2
    # Ray writes its own notices (a raylet that died, worker logs) to file
    # descriptor 1 from its threads: while it runs, that goes to stderr, and
    # only the answer goes to standard output.
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    try:
        a = run_query(q)
    except ImportError as e:
        sys.stderr.write(f"grail-ray: needs Ray on this machine (pip install ray): {e}\n")
        return 2
    except ConnectionError as e:
        sys.stderr.write(f"grail-ray: no Ray cluster to connect to: {e}\n")
        return 2
    p = Printer(colors, q.names, q.numbers, q.offsets)
    try:
        if q.kind == "lines":
            for r in a.records:
                if q.json:
                    out.write(json.dumps(r, separators=(",", ":")).encode() + b"\n")
                else:
                    out.write(p.line(r["node"], r))
            if q.json:
                out.write(json.dumps(summary(a), separators=(",", ":")).encode() + b"\n")
        elif q.kind == "c":
            for label, path, c in a.counts:
                out.write(p.count(label, path, c))
        elif q.kind in ("l", "L"):
            for label, path, _ in a.counts:
                out.write(p.name(label, path))
        out.flush()
    except BrokenPipeError:
        # A closed pipe ends grail-ray as it ends grep: by SIGPIPE.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGPIPE)
        return 2
    for m in a.messages:
        sys.stderr.write(m + "\n")
    if q.kind == "quiet" and a.selected:
        return 0
    if a.failed:
        return 2
    return 0 if a.selected else 1


def run() -> None:
    """The console script: `main`, then an exit that skips Ray's own
    disconnection at interpreter exit (most of a second; the cluster sees
    the driver's sockets close either way)."""
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    if "ray" in sys.modules and sys.modules["ray"].is_initialized():
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    run()
