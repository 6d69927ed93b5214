"""The driver: one grail run per node of a Ray cluster, one answer.

A query is two rounds of Ray tasks, each pinned to its node with a hard
`NodeAffinitySchedulingStrategy` and asking for no CPU (a cluster whose
CPUs are all taken by the service that just died still answers):

1. *probe*: expand the paths on the node (globs, `{node_id}`, `{node_ip}`,
   `{hostname}`), identify each file by (host, device, inode), and find the
   grail binary there;
2. *search*: run grail over the files assigned to the node (a file seen by
   several nodes of one host goes to the first of them), with the driver's
   binary sent through the object store where the node has none.

The lines come back as grail's `--merge --json` records, which carry each
line's place on its node's timeline (`"time"`); the driver merges the
nodes' timelines by the same order `grail --merge` uses: time, then node,
then the node's own order (file, line).
"""

from __future__ import annotations

import hashlib
import heapq
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field

from . import node as node_side
from .options import REFUSED, Parsed, UsageError, parse, render

LOCALE_VARS = ("LC_ALL", "LC_CTYPE", "LANG", "LANGUAGE")


def parse_duration(s: str) -> float:
    """`30s`, `5m`, `1.5h`, `250ms` or a number of seconds."""
    units = [("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0), ("d", 86400.0)]
    for suffix, mult in units:
        if s.endswith(suffix):
            num = s[: -len(suffix)]
            break
    else:
        num, mult = s, 1.0
    try:
        v = float(num) * mult
    except ValueError:
        raise UsageError(f"--node-timeout: '{s}' is not a duration (30s, 5m, 1.5h, 250ms)") from None
    if not v > 0:
        raise UsageError(f"--node-timeout: '{s}' is not a positive duration")
    return v


@dataclass
class Node:
    """One node of the query."""

    node_id: str
    ip: str
    hostname: str
    label: str = ""
    #: What went wrong there, in words (the answer lacks its lines).
    errors: list = field(default_factory=list)
    files: list = field(default_factory=list)
    probe: dict | None = None
    result: dict | None = None
    #: grail's --json summary of the node's run.
    summary: dict | None = None
    records: list = field(default_factory=list)
    counts: list = field(default_factory=list)
    elapsed: float | None = None


@dataclass
class Answer:
    """What a cluster query found."""

    nodes: list
    #: Merged records, each grail's --json object with `node` added.
    records: list
    #: -c: (node label, path, count); -l/-L: (node label, path, None).
    counts: list
    #: Lines selected anywhere (for -q and the exit status).
    selected: bool
    #: stderr lines, already prefixed with their node.
    messages: list
    elapsed: float
    #: Seconds spent connecting, probing the nodes, searching, merging.
    phases: dict = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return any(n.errors for n in self.nodes) or any(
            m.startswith("grail-ray:") for m in self.messages
        )


def labels(nodes: list) -> None:
    """Each node's name in the output: its IP, or its short id where
    IPs repeat (several nodes of one host)."""
    ips = [n.ip for n in nodes]
    repeated = len(set(ips)) < len(ips)
    for n in nodes:
        if not repeated:
            n.label = n.ip
            continue
        k = 8
        while sum(1 for m in nodes if m.node_id.startswith(n.node_id[:k])) > 1:
            k += 4
        n.label = n.node_id[:k]


def choose(all_nodes: list, spec: str | None, messages: list) -> list:
    """The nodes `--nodes` names (`all`, or node-id prefixes, IPs or host
    names, comma-separated), alive ones only."""
    alive = [n for n in all_nodes if n["Alive"]]
    if not spec or spec == "all":
        return alive
    picked = []
    for want in spec.split(","):
        want = want.strip()
        if not want:
            continue
        hits = [
            n
            for n in all_nodes
            if n["NodeID"].startswith(want)
            or want in (n["NodeManagerAddress"], n["NodeManagerHostname"])
        ]
        if not hits:
            messages.append(f"grail-ray: --nodes: no node is '{want}'")
            continue
        ids = {n["NodeID"] for n in hits}
        if len(ids) > 1 and not any(
            want in (n["NodeManagerAddress"], n["NodeManagerHostname"]) for n in hits
        ):
            messages.append(f"grail-ray: --nodes: '{want}' names {len(ids)} nodes; give more of the id")
            continue
        for n in hits:
            if not n["Alive"]:
                messages.append(f"grail-ray: node {n['NodeID'][:8]} ('{want}') is not alive")
            elif n not in picked:
                picked.append(n)
    return picked


class Query:
    """One command line, checked and turned into what each node runs."""

    def __init__(self, argv: list[str], grail: str | None = None):
        self.p: Parsed = parse(argv)
        p = self.p
        for oid, _ in p.options:
            if oid in REFUSED:
                raise UsageError(f"{REFUSED[oid]} is not supported by grail-ray")
        if "grail" in p.ray:
            grail = p.ray["grail"]
        self.explicit_grail = p.ray.get("grail")
        self.local_grail = grail or shutil.which("grail")
        if not p.patterns_given and not p.operands:
            raise UsageError("no pattern given")
        if not p.paths:
            raise UsageError("no PATH given: name the log files (globs and {node_id}, {node_ip}, {hostname} are expanded on each node)")
        self.timeout = parse_duration(p.ray["node-timeout"]) if "node-timeout" in p.ray else None
        last = {o: i for i, (o, _) in enumerate(p.options)}
        listing = [o for o in ("c", "l", "L") if o in last]
        # grep: the last of -c/-l/-L wins... as grail decides; only the kind matters here.
        self.kind = "quiet" if p.has("q") else (max(listing, key=last.get) if listing else "lines")
        self.json = p.has("json")
        if self.json and self.kind in ("c", "l", "L"):
            raise UsageError(f"--json does not combine with -{self.kind}")
        tail = p.last("t")
        head = p.last("head")
        self.tail = int(tail) if tail is not None and tail.isdigit() else None
        self.head = int(head) if head is not None and head.isdigit() else None
        if tail is not None and self.tail is None:
            raise UsageError(f"invalid tail count '{tail}'")
        if head is not None and self.head is None:
            raise UsageError(f"invalid head count '{head}'")
        self.names = not p.has("h") or (p.has("H") and last["H"] > last["h"])
        self.numbers = last.get("n", -1) > last.get("no-line-number", -1)
        self.offsets = p.has("b")
        # Pattern files are read here and written out on each node.
        self.pattern_files: list[bytes] = []
        self.argv: list[str] = []
        #: What `validate` runs: the time window needs a log with stamps,
        #: so the nodes check that part.
        self.check_argv: list[str] = []
        for oid, val in p.options:
            if oid in ("f", "exclude-from"):
                data = sys.stdin.buffer.read() if val == "-" else _read(val)
                val = f"{{pattern-file:{len(self.pattern_files)}}}"
                self.pattern_files.append(data)
            if oid in ("color", "json", "H", "h", "rotated"):
                continue
            self.argv += render(oid, val)
            if oid not in ("since", "before", "time-format"):
                self.check_argv += render(oid, val)
        self.rotated = p.values("rotated")
        mode = []
        if self.kind == "lines":
            mode = ["--merge", "--json"]
            if not self.numbers:
                # Numbering a tail's lines means reading the whole file.
                mode.append("--no-line-number")
        elif self.kind in ("c", "l", "L"):
            mode = ["-H", "-Z"]
        self.argv += mode
        self.check_argv += mode
        #: Where the driver's binary runs (`os-machine`).
        self.platform = node_side.this_platform()
        self.color_when = p.last("color")
        self.color_given = p.has("color")

    def validate(self) -> str | None:
        """grail's own verdict on the options, from a run on an empty input
        here (None: accepted, or no grail here to ask)."""
        if not self.local_grail:
            return None
        data = [(f"{{pattern-file:{k}}}", d) for k, d in enumerate(self.pattern_files)]
        import tempfile

        with tempfile.TemporaryDirectory(prefix="grail-ray-") as tmp:
            argv = []
            for a in self.check_argv:
                for k, (ph, d) in enumerate(data):
                    if a == ph:
                        a = os.path.join(tmp, f"patterns-{k}")
                        with open(a, "wb") as f:
                            f.write(d)
                argv.append(a)
            pat = [self.p.pattern_operand] if self.p.pattern_operand is not None else []
            # An empty regular file (--since refuses pipes and devices).
            empty = os.path.join(tmp, "empty.log")
            open(empty, "wb").close()
            try:
                r = subprocess.run(
                    [self.local_grail, *argv, "--", *pat, empty],
                    capture_output=True,
                    stdin=subprocess.DEVNULL,
                    timeout=60,
                )
            except (OSError, subprocess.TimeoutExpired) as e:
                return f"grail-ray: cannot run {self.local_grail}: {e}"
        if r.returncode == 2:
            return r.stderr.decode("utf-8", "replace").rstrip("\n")
        return None


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror}") from None


def _reachable(addr: str, timeout: float = 10.0) -> None:
    """Raise ConnectionError unless the cluster's address answers: Ray
    itself retries an unreachable address for minutes."""
    import socket

    try:
        from ray._private.services import canonicalize_bootstrap_address_or_die
    except ImportError:
        return
    try:
        where = canonicalize_bootstrap_address_or_die(addr)
    except ConnectionError:
        raise
    except Exception as e:  # noqa: BLE001 - a malformed address
        raise ConnectionError(f"{addr}: {e}") from None
    host, _, port = where.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except (OSError, ValueError) as e:
        raise ConnectionError(f"{where} does not answer ({e})") from None


def _binary(path: str | None):
    """The driver's grail binary: bytes, sha256 and platform."""
    if not path:
        return None, None
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError:
        return None, None
    return blob, hashlib.sha256(blob).hexdigest()


def _reason(e: BaseException, n: Node, alive_now) -> str:
    import ray

    if not alive_now(n.node_id):
        return "the node died while searching (it left the cluster)"
    if isinstance(e, ray.exceptions.TaskCancelledError):
        return "the search was cancelled"
    if isinstance(e, (ray.exceptions.NodeDiedError, ray.exceptions.LocalRayletDiedError)):
        return "the node died while searching"
    if isinstance(e, ray.exceptions.WorkerCrashedError):
        return "the Ray worker running the search died"
    if isinstance(e, ray.exceptions.RayTaskError):
        cause = e.cause if getattr(e, "cause", None) is not None else e
        return f"the search failed: {type(cause).__name__}: {cause}".splitlines()[0]
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"


def _gather(refs: dict, deadline: float | None, on_done, on_error) -> list:
    """Wait for each task until `deadline`; those left are cancelled and
    returned."""
    import ray

    pending = dict(refs)
    while pending:
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        if left == 0.0:
            break
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=left)
        for r in ready:
            n = pending.pop(r)
            try:
                on_done(n, ray.get(r))
            except Exception as e:  # noqa: BLE001 - every failure is the node's
                on_error(n, e)
    for r in pending:
        try:
            ray.cancel(r, force=True)
        except Exception:  # noqa: BLE001 - the node may be gone already
            pass
    return list(pending.values())


def run_query(q: Query, address: str | None = None, ray_init: bool = True) -> Answer:
    """Run `q` on the cluster; the merged answer."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    t0 = time.monotonic()
    phases = {}
    messages: list[str] = []
    if ray_init and not ray.is_initialized():
        addr = address or q.p.ray.get("address") or os.environ.get("RAY_ADDRESS") or "auto"
        _reachable(addr)
        ray.init(
            address=addr,
            logging_level="ERROR",
            log_to_driver=False,
            include_dashboard=False,
        )
    try:
        import ray.cloudpickle as cp

        cp.register_pickle_by_value(node_side)
    except (ImportError, ValueError):
        pass
    deadline = None if q.timeout is None else t0 + q.timeout
    t1 = time.monotonic()
    phases["connect"] = t1 - t0
    picked = choose(ray.nodes(), q.p.ray.get("nodes"), messages)
    nodes = [Node(n["NodeID"], n["NodeManagerAddress"], n["NodeManagerHostname"]) for n in picked]
    labels(nodes)
    nodes.sort(key=lambda n: n.label)
    blob, digest = _binary(q.local_grail)

    def alive_now(node_id: str) -> bool:
        return any(m["NodeID"] == node_id and m["Alive"] for m in ray.nodes())

    def pinned(n: Node):
        return NodeAffinitySchedulingStrategy(node_id=n.node_id, soft=False)

    def failed(n: Node, e: BaseException):
        n.errors.append(_reason(e, n, alive_now))

    probe = ray.remote(num_cpus=0, max_retries=0)(node_side.probe)
    refs = {}
    for n in nodes:
        job = {
            "templates": q.p.paths,
            "rotated": q.rotated,
            "grail": q.explicit_grail,
            "digest": digest,
            "node_id": n.node_id,
            "node_ip": n.ip,
        }
        refs[probe.options(scheduling_strategy=pinned(n)).remote(job)] = n

    def probed(n: Node, res: dict):
        n.probe = res
        n.hostname = res["hostname"]
        n.errors.extend(res["errors"])

    for n in _gather(refs, deadline, probed, failed):
        n.errors.append(f"no answer within {q.p.ray['node-timeout']}")
    t2 = time.monotonic()
    phases["probe"] = t2 - t1
    # Each file once per host: the first node (in output order) that sees it.
    seen = set()
    for n in nodes:
        if n.probe is None:
            continue
        for f in n.probe["files"]:
            key = (n.hostname, *f["id"])
            if key in seen:
                continue
            seen.add(key)
            n.files.append(f["path"])
    search = ray.remote(num_cpus=0, max_retries=0)(node_side.search)
    env = {k: os.environ[k] for k in LOCALE_VARS if k in os.environ}
    blob_ref = None
    refs = {}
    for n in nodes:
        if n.probe is None or not (n.files or n.probe["rotated"]):
            continue
        binary = n.probe["binary"]
        send = None
        if binary is None:
            if blob is None:
                n.errors.append(
                    "no grail binary there (not on PATH, no --grail) and none here to send"
                )
                continue
            if n.probe["platform"] != q.platform:
                n.errors.append(
                    f"no grail binary there, and this one ({q.platform}) "
                    f"does not run on {n.probe['platform']}: install grail on the node or give --grail"
                )
                continue
            if not n.probe["cached"]:
                if blob_ref is None:
                    blob_ref = ray.put(blob)
                send = blob_ref
        rotated = []
        for r in n.probe["rotated"]:
            rotated += ["--rotated", r]
        remaining = None if deadline is None else max(0.1, deadline - time.monotonic())
        job = {
            "binary": binary,
            "digest": digest,
            "argv": q.argv + rotated,
            "pattern_files": q.pattern_files,
            "operands": ([q.p.pattern_operand] if q.p.pattern_operand is not None else [])
            + n.files,
            "env": env,
            "timeout": remaining,
        }
        refs[search.options(scheduling_strategy=pinned(n)).remote(job, send)] = n

    def searched(n: Node, res: dict):
        n.result = res
        n.elapsed = res["elapsed"]
        for line in res["stderr"].decode("utf-8", "replace").splitlines():
            messages.append(f"{n.label}: {line}")
        if res.get("timed_out"):
            n.errors.append(f"no answer within {q.p.ray['node-timeout']}")
        elif res["rc"] is None:
            n.errors.append("grail did not run")
        elif res["rc"] == 2:
            n.errors.append("grail reported errors (above)")
        _read_output(q, n)

    for n in _gather(refs, deadline, searched, failed):
        n.errors.append(f"no answer within {q.p.ray['node-timeout']}")
    t3 = time.monotonic()
    phases["search"] = t3 - t2
    a = _combine(q, nodes, messages, 0.0)
    phases["merge"] = time.monotonic() - t3
    a.phases = phases
    a.elapsed = time.monotonic() - t0
    return a


def _read_output(q: Query, n: Node) -> None:
    out = n.result["stdout"]
    if q.kind == "lines":
        for line in out.splitlines():
            rec = json.loads(line)
            if rec.get("type") == "summary":
                n.summary = rec
            elif rec.get("type") == "match":
                if "time" not in rec:
                    n.errors.append(
                        f"its grail ({n.result['binary']}) gives no merge times: too old; "
                        "give --grail, or take it off PATH so the driver's binary is sent"
                    )
                    n.records = []
                    return
                n.records.append(rec)
    elif q.kind == "c":
        for item in out.split(b"\n"):
            if item:
                path, _, count = item.rpartition(b"\0")
                n.counts.append((os.fsdecode(path), int(count)))
    elif q.kind in ("l", "L"):
        for path in out.split(b"\0"):
            if path.strip(b"\n"):
                n.counts.append((os.fsdecode(path.strip(b"\n")), None))


def _time_key(rec: dict):
    t = rec["time"]
    return (0, 0, 0) if t is None else (1, t["s"], t["ns"])


def _combine(q: Query, nodes: list, messages: list, elapsed: float) -> Answer:
    records, counts = [], []
    selected = False
    if q.kind == "lines":
        years = {r["time"]["year"] for n in nodes for r in n.records if r["time"] is not None}
        if len(years) > 1:
            with_year = [n.label for n in nodes if any(r["time"] and r["time"]["year"] for r in n.records)]
            without = [n.label for n in nodes if any(r["time"] and not r["time"]["year"] for r in n.records)]
            messages.append(
                "grail-ray: the timestamps on "
                + ", ".join(without)
                + " have no year and those on "
                + ", ".join(with_year)
                + " do: one timeline needs both with years or both without (--time-format can say how to read them)"
            )
            return Answer(nodes, [], [], False, messages, elapsed)
        streams = []
        for k, n in enumerate(nodes):
            for r in n.records:
                r["node"] = n.label
            streams.append(((_time_key(r), k), r) for r in n.records)
        merged = [r for _, r in heapq.merge(*streams, key=lambda x: x[0])]
        selected = bool(merged)
        if q.tail is not None:
            merged = merged[len(merged) - q.tail :] if q.tail < len(merged) else merged
        if q.head is not None:
            merged = merged[: q.head]
        records = merged
    elif q.kind in ("c", "l", "L"):
        for n in nodes:
            for path, c in n.counts:
                counts.append((n.label, path, c))
        selected = any(
            n.result is not None and n.result["rc"] == 0 for n in nodes
        )
    else:
        selected = any(n.result is not None and n.result["rc"] == 0 for n in nodes)
    for n in nodes:
        for e in n.errors:
            where = f"{n.ip} ({n.node_id[:8]})" if n.label == n.ip else f"{n.label} ({n.ip})"
            messages.append(f"grail-ray: node {where}: {e}")
    return Answer(nodes, records, counts, selected, messages, elapsed)


def summary(a: Answer) -> dict:
    """The `--json` summary: the cluster's figures and each node's."""
    per = []
    for n in a.nodes:
        files = (n.summary or {}).get("files", [])
        per.append(
            {
                "node": n.label,
                "node_id": n.node_id,
                "ip": n.ip,
                "hostname": n.hostname,
                "selected": sum(f.get("selected", 0) for f in files),
                "returned": len(n.records),
                "bytes_read": sum(f.get("scanned", 0) for f in files),
                "elapsed_ms": None if n.elapsed is None else n.elapsed * 1000.0,
                "grail_ms": (n.summary or {}).get("elapsed_ms"),
                "binary": None if n.result is None else n.result["binary"],
                "files": files,
                "errors": n.errors,
            }
        )
    return {
        "type": "summary",
        "selected": len(a.records),
        "elapsed_ms": a.elapsed * 1000.0,
        "phases_ms": {k: v * 1000.0 for k, v in a.phases.items()},
        "nodes": per,
    }
