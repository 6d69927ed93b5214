"""grail-ray against a real 3-node Ray cluster on 127.0.0.1, compared with
an independent merged timeline (oracle.py)."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import time

import pytest

from conftest import write_wrapper
from oracle import timeline, write_rank_log

PATTERN = ["-E", "ERROR|Error|Traceback"]
EXCLUDE = ["-N", "NCCL"]


def node_ids(cluster):
    return sorted(cluster.nodes)


@pytest.fixture(scope="module")
def logs(cluster):
    """Two rank logs in each node's directory, and `extra.log` on all nodes
    but the last."""
    ids = node_ids(cluster)
    assert len(ids) == 3
    for k, nid in enumerate(ids):
        d = os.path.join(cluster.logs, nid)
        os.makedirs(d, exist_ok=True)
        for r in range(2):
            write_rank_log(os.path.join(d, f"rank{r}.log"), seed=10 * k + r)
        if k < 2:
            write_rank_log(os.path.join(d, "extra.log"), seed=100 + k, lines=500)
    return ids


def layout(cluster, ids, name="rank*.log"):
    """The oracle's nodes: (label, files) in output order. IPs repeat (one
    host), so each label is the node id's first 8 hex digits."""
    out = []
    for nid in ids:
        files = sorted(glob.glob(os.path.join(cluster.logs, nid, name)))
        out.append((nid[:8], files))
    return sorted(out)


def lines(out: bytes) -> list[bytes]:
    return out.split(b"\n")[:-1] if out else []


@pytest.mark.parametrize("n", [1, 25, 300])
def test_tail_is_the_cluster_timeline(cluster, logs, n):
    r = cluster.run(*PATTERN, *EXCLUDE, "-t", str(n), os.path.join(cluster.logs, "{node_id}", "rank*.log"))
    assert r.returncode == 0, r.stderr.decode()
    want = timeline(layout(cluster, logs), PATTERN, [b"NCCL"])
    assert len(want) > 300
    assert lines(r.stdout) == want[-n:]
    assert r.stderr == b""


def test_forward_with_numbers_is_the_whole_timeline(cluster, logs):
    r = cluster.run("-n", "-e", "Traceback", "-e", "out of memory", os.path.join(cluster.logs, "{node_id}", "rank*.log"))
    assert r.returncode == 0, r.stderr.decode()
    want = timeline(layout(cluster, logs), ["-e", "Traceback", "-e", "out of memory"], numbers=True)
    assert lines(r.stdout) == want


def test_head(cluster, logs):
    r = cluster.run(*PATTERN, "--head", "40", os.path.join(cluster.logs, "{node_id}", "rank*.log"))
    assert r.returncode == 0, r.stderr.decode()
    assert lines(r.stdout) == timeline(layout(cluster, logs), PATTERN)[:40]


def test_node_without_the_file_is_named_and_the_rest_printed(cluster, logs):
    r = cluster.run(*PATTERN, "-t", "50", os.path.join(cluster.logs, "{node_id}", "extra.log"))
    assert r.returncode == 2
    have = [(l, f) for l, f in layout(cluster, logs, "extra.log") if f]
    assert len(have) == 2
    assert lines(r.stdout) == timeline(have, PATTERN)[-50:]
    missing = [nid for nid in logs if not os.path.exists(os.path.join(cluster.logs, nid, "extra.log"))]
    err = r.stderr.decode()
    assert f"node {missing[0][:8]}" in err and "no file matches" not in err
    assert "extra.log: No such file or directory" in err, err


def test_glob_matching_nothing_on_a_node(cluster, logs):
    r = cluster.run("ERROR", "-t", "5", os.path.join(cluster.logs, "{node_id}", "ext*.log"))
    assert r.returncode == 2
    assert "no file matches" in r.stderr.decode()
    assert len(lines(r.stdout)) == 5


def test_counts_and_names_per_node_and_file(cluster, logs):
    pat = os.path.join(cluster.logs, "{node_id}", "rank*.log")
    r = cluster.run("-c", "Traceback", pat)
    assert r.returncode == 0, r.stderr.decode()
    want = []
    for label, files in layout(cluster, logs):
        for f in files:
            c = subprocess.run(["grep", "-c", "Traceback", f], capture_output=True).stdout.decode().strip()
            want.append(f"{label}:{f}:{c}".encode())
    assert lines(r.stdout) == want
    r = cluster.run("-l", "worker 1 step", pat)
    assert r.returncode == 0
    assert lines(r.stdout) == [f"{logs_label}:{f}".encode() for logs_label, fs in layout(cluster, logs) for f in fs if f.endswith("rank1.log") and "/" + logs[0] in f]
    r = cluster.run("-q", "no such line anywhere", pat)
    assert r.returncode == 1 and r.stdout == b""


def test_json_records_carry_their_node_and_a_summary(cluster, logs):
    r = cluster.run(*PATTERN, "-t", "30", "--json", os.path.join(cluster.logs, "{node_id}", "rank*.log"))
    assert r.returncode == 0, r.stderr.decode()
    objs = [json.loads(l) for l in lines(r.stdout)]
    recs, summary = objs[:-1], objs[-1]
    assert summary["type"] == "summary" and len(recs) == 30
    want = timeline(layout(cluster, logs), PATTERN)[-30:]
    assert [f"{o['node']}:{o['path']}:{o['text']}".encode() for o in recs] == want
    assert sorted(n["node_id"] for n in summary["nodes"]) == logs
    for n in summary["nodes"]:
        assert n["errors"] == []
        assert n["node"] == n["node_id"][:8]
        assert 0 < n["bytes_read"] <= sum(f["size"] for f in n["files"])
        assert n["elapsed_ms"] > 0 and n["returned"] <= 30
        assert len(n["files"]) == 2


def test_a_node_without_grail_gets_the_drivers_binary(cluster, logs):
    r = cluster.run("ERROR", "-t", "3", "--json", os.path.join(cluster.logs, "{node_id}", "rank0.log"))
    assert r.returncode == 0, r.stderr.decode()
    summary = json.loads(lines(r.stdout)[-1])
    shipped = [n for n in summary["nodes"] if cluster.cache_dirs[n["node_id"]].endswith("worker2")]
    assert len(shipped) == 1
    b = shipped[0]["binary"]
    assert b.startswith(cluster.cache_dirs[shipped[0]["node_id"]] + os.sep), b
    with open(b, "rb") as f, open(os.environ.get("GRAIL_BIN") or os.path.realpath(os.path.join(cluster.bindir, "grail")), "rb") as g:
        assert f.read() == g.read()
    others = [n for n in summary["nodes"] if n is not shipped[0]]
    assert all(n["binary"] == os.path.join(cluster.bindir, "grail") for n in others)


def test_a_file_seen_by_several_nodes_of_one_host_is_searched_once(cluster, logs):
    shared = os.path.join(cluster.tmp, "shared.log")
    write_rank_log(shared, seed=7, lines=300)
    r = cluster.run("-c", "ERROR", shared, os.path.join(cluster.logs, "{node_id}", "rank0.log"))
    assert r.returncode == 0, r.stderr.decode()
    out = lines(r.stdout)
    assert sum(1 for l in out if b":" + shared.encode() + b":" in l) == 1
    first = layout(cluster, logs)[0][0]
    assert out[0].startswith(f"{first}:{shared}:".encode())
    assert len(out) == 4


def test_nodes_option_picks_nodes(cluster, logs):
    pick = logs[1]
    r = cluster.run("--nodes", pick[:6], *PATTERN, "-t", "10", os.path.join(cluster.logs, "{node_id}", "rank*.log"))
    assert r.returncode == 0, r.stderr.decode()
    files = sorted(glob.glob(os.path.join(cluster.logs, pick, "rank*.log")))
    # One node: its IP does not repeat, so it is named by its IP.
    assert lines(r.stdout) == timeline([("127.0.0.1", files)], PATTERN)[-10:]
    r = cluster.run("--nodes", "ffffffffff", "ERROR", os.path.join(cluster.logs, "{node_id}", "rank*.log"))
    assert r.returncode == 2 and b"no node is 'ffffffffff'" in r.stderr


def test_logs_with_and_without_years_are_refused_together(cluster, logs):
    d = os.path.join(cluster.tmp, "mixed")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "syslog"), "w") as f:
        f.write("Mar  1 12:00:01 host app: ERROR x\n")
    # The first node reads the syslog file (no year), the others their ISO logs.
    paths = [os.path.join(d, "syslog"), os.path.join(cluster.logs, "{node_id}", "rank0.log")]
    r = cluster.run("--nodes", logs[0][:8], "ERROR", *paths)
    assert r.returncode == 2 and b"have no year" in r.stderr


def test_refusals_need_no_cluster(cluster):
    with open(os.path.join(cluster.tmp, "bad.pat"), "w") as f:
        f.write("(\n")
    with open(os.path.join(cluster.tmp, "good.pat"), "w") as f:
        f.write("ok\n")
    for args, words in [
        (["-o", "x", "f"], b"-o"),
        (["-A", "2", "x", "f"], b"context"),
        (["--follow", "x", "f"], b"--follow"),
        (["x"], b"no PATH"),
        (["-c", "--json", "x", "f"], b"--json"),
        (["--node-timeout", "soon", "x", "f"], b"duration"),
        (["-E", "(", "f"], b"grail"),
        # Each -f file is checked as itself (the bad one first).
        (["-E", "-f", "BAD", "-f", "GOOD", "f"], b"Unmatched"),
    ]:
        args = [os.path.join(cluster.tmp, "bad.pat") if a == "BAD" else a for a in args]
        args = [os.path.join(cluster.tmp, "good.pat") if a == "GOOD" else a for a in args]
        r = cluster.run(*args, RAY_ADDRESS="127.0.0.1:1")
        assert r.returncode == 2, (args, r.stderr)
        assert words in r.stderr, (args, r.stderr)
        assert r.stdout == b""


def test_the_installed_command(cluster, logs):
    """`pip install ./python` gives a `grail-ray` command."""
    exe = os.path.join(os.path.dirname(sys.executable), "grail-ray")
    assert os.access(exe, os.X_OK), exe
    r = subprocess.run([exe, *PATTERN, "-t", "3", os.path.join(cluster.logs, "{node_id}", "rank*.log")],
                       capture_output=True, env=cluster.env(PYTHONPATH=""), timeout=300)
    assert r.returncode == 0, r.stderr.decode()
    assert lines(r.stdout) == timeline(layout(cluster, logs), PATTERN)[-3:]


def test_library_call_and_a_binary_for_another_platform(cluster, logs):
    """grail_ray.search from Python; a node without grail whose platform is
    not the driver's binary's fails with the reason, the others answer."""
    code = f"""
import json, sys
import grail_ray
from grail_ray.cluster import Query, run_query
a = grail_ray.search({PATTERN + ['-t', '5', os.path.join(cluster.logs, '{node_id}', 'rank*.log')]!r})
print(json.dumps([[r["node"], r["path"], r["text"]] for r in a.records]))
q = Query({PATTERN + ['-t', '5', os.path.join(cluster.logs, '{node_id}', 'rank*.log')]!r})
q.platform = "plan9-mips"
b = run_query(q)
print(json.dumps({{n.node_id: n.errors for n in b.nodes}}))
print(json.dumps([[r["node"], r["path"], r["text"]] for r in b.records]))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, env=cluster.env(), timeout=300)
    assert r.returncode == 0, r.stderr.decode()
    first, errors, second = (json.loads(l) for l in lines(r.stdout))
    want = timeline(layout(cluster, logs), PATTERN)[-5:]
    assert [f"{a}:{b}:{c}".encode() for a, b, c in first] == want
    shipped = [nid for nid in errors if cluster.cache_dirs[nid].endswith("worker2")]
    assert len(shipped) == 1
    assert "does not run on" in errors[shipped[0]][0] and "plan9-mips" in errors[shipped[0]][0]
    assert all(not e for nid, e in errors.items() if nid != shipped[0])
    others = [(l, f) for l, f in layout(cluster, logs) if not l.startswith(shipped[0][:8])]
    assert [f"{a}:{b}:{c}".encode() for a, b, c in second] == timeline(others, PATTERN)[-5:]


def test_colour_is_grails_after_the_node(cluster, logs):
    f = os.path.join(cluster.logs, logs[0], "rank0.log")
    r = cluster.run("--nodes", logs[0][:8], "--color=always", "-n", "-t", "12", "-e", "Traceback", "-e", "out of memory", f)
    assert r.returncode == 0, r.stderr.decode()
    g = subprocess.run([cluster.grail, "--merge", "-H", "--color=always", "-n", "-t", "12", "-e", "Traceback", "-e", "out of memory", f],
                       capture_output=True)
    node = b"\x1b[35m\x1b[K127.0.0.1\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K"
    want = [node + line for line in lines(g.stdout)]
    assert len(want) == 12 and b"\x1b[01;31m" in g.stdout
    assert lines(r.stdout) == want


def test_a_closed_pipe_ends_it_as_grep(cluster, logs):
    cmd = f"set -o pipefail; {sys.executable} -m grail_ray ERROR '{cluster.logs}/{{node_id}}/rank*.log' | head -n 1"
    r = subprocess.run(["bash", "-c", cmd], capture_output=True, env=cluster.env(), timeout=300)
    assert len(lines(r.stdout)) == 1
    assert r.returncode == 141, (r.returncode, r.stderr)
    assert b"Traceback" not in r.stderr and b"BrokenPipe" not in r.stderr, r.stderr


@pytest.fixture
def slow_node(cluster, logs):
    """A fourth node whose grail sleeps 60 s after saying it started; it is
    removed at the end if the test has not removed it."""
    mark = os.path.join(cluster.tmp, f"started-{time.monotonic_ns()}")
    n = cluster.add_node("slow", GRAIL_TEST_SLOW="60", GRAIL_TEST_MARK=mark)
    d = os.path.join(cluster.logs, n.node_id)
    os.makedirs(d, exist_ok=True)
    write_rank_log(os.path.join(d, "rank0.log"), seed=99)
    wrapper = os.path.join(cluster.tmp, "grail-wrapper")
    write_wrapper(wrapper, os.path.realpath(os.path.join(cluster.bindir, "grail")))
    yield n, mark, wrapper
    if n in cluster.cluster.worker_nodes:
        cluster.cluster.remove_node(n)
    cluster.nodes.pop(n.node_id, None)
    # The next test starts when the cluster knows the node is gone.
    deadline = time.monotonic() + 120
    while n.node_id in cluster.alive():
        assert time.monotonic() < deadline, "the removed node is still alive"
        time.sleep(1)


def test_node_timeout_names_the_slow_node(cluster, logs, slow_node):
    n, mark, wrapper = slow_node
    t = time.monotonic()
    r = cluster.run("--grail", wrapper, "--node-timeout", "4s", *PATTERN, "-t", "25",
                    os.path.join(cluster.logs, "{node_id}", "rank*.log"))
    took = time.monotonic() - t
    assert r.returncode == 2, r.stderr.decode()
    assert took < 40, took
    err = r.stderr.decode()
    assert f"node {n.node_id[:8]}" in err and "no answer within 4s" in err, err
    want = timeline(layout(cluster, logs), PATTERN)[-25:]
    assert lines(r.stdout) == want


def test_a_node_removed_during_a_query(cluster, logs, slow_node):
    n, mark, wrapper = slow_node
    cmd = [sys.executable, "-m", "grail_ray", "--grail", wrapper, *PATTERN, "-t", "25",
           os.path.join(cluster.logs, "{node_id}", "rank*.log")]
    p = subprocess.Popen(cmd, env=cluster.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not os.path.exists(mark):
            assert p.poll() is None, p.communicate()
            assert time.monotonic() < deadline, "the slow node's search never started"
            time.sleep(0.1)
        cluster.cluster.remove_node(n, allow_graceful=False)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 2, err.decode()
    assert f"node {n.node_id[:8]}" in err.decode() and "died" in err.decode(), err.decode()
    assert lines(out) == timeline(layout(cluster, logs), PATTERN)[-25:]


def test_every_listening_socket_of_the_cluster_is_loopback(cluster):
    """No Ray process of the test cluster listens beyond 127.0.0.1."""
    me = os.getpid()
    kids, parent = set(), {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    parent[int(pid)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    for pid in parent:
        p = pid
        while p in parent and p not in (0, 1):
            if parent[p] == me:
                kids.add(pid)
                break
            p = parent[p]
    inodes = set()
    for pid in kids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
        except OSError:
            pass
    assert kids, "the cluster runs no process under this test"
    listening = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for row in f.read().splitlines()[1:]:
                cols = row.split()
                if cols[3] == "0A" and cols[9] in inodes:
                    listening.append(cols[1].split(":")[0])
    assert listening, "no listening socket found"
    loopback = {"0100007F", "00000000000000000000000001000000", "0000000000000000FFFF00000100007F"}
    assert all(a in loopback for a in listening), listening




def test_an_address_that_does_not_answer(cluster):
    t = time.monotonic()
    r = cluster.run("--address", "127.0.0.1:1", "x", "f")
    assert r.returncode == 2 and b"no Ray cluster to connect to" in r.stderr, r.stderr
    assert r.stdout == b"" and time.monotonic() - t < 60


def test_since_passes_through(cluster, logs):
    """--since on every node: the cluster timeline's lines that grail's own
    --since window (tested against awk in tests/timewin.rs) keeps in each file."""
    since = "2024-03-01T12:00:20Z"
    r = cluster.run("--since", since, *PATTERN, os.path.join(cluster.logs, "{node_id}", "rank*.log"))
    assert r.returncode == 0, r.stderr.decode()
    kept = set()
    for _, files in layout(cluster, logs):
        for f in files:
            g = subprocess.run([cluster.grail, "-Hn", "--since", since, *PATTERN, f], capture_output=True)
            assert g.returncode == 0, g.stderr
            kept.update(lines(g.stdout))
    numbered = timeline(layout(cluster, logs), PATTERN, numbers=True)
    # LABEL:PATH:N:TEXT, kept by (PATH, N), printed without N.
    want = [
        b":".join(l.split(b":", 3)[:2] + l.split(b":", 3)[3:])
        for l in numbered
        if l.split(b":", 1)[1] in kept
    ]
    assert 0 < len(want) < len(numbered)
    assert lines(r.stdout) == want
