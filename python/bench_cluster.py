"""Cluster-wide `-t 20` against `grail --merge -t 20` on one machine.

Starts a local Ray cluster (a head and two workers, all on 127.0.0.1),
gives each node 1 GiB of rank logs (two of grail-bench's 512 MiB ranks, as
`DIR/{node_id}/rank*.log`), warms the page cache, and times side by side:

- `grail-ray -t 20` as a command (a new Python process each run),
- `grail_ray.search` in a driver already connected (the Ray rounds only),
- `grail --merge -t 20` over the same six files on this machine.

    cargo run --release -p grail-bench -- --size 4G --scenarios merge-t20 --runs 1
    python3 python/bench_cluster.py --ranks bench-data/ranks8-536853508-s1 --runs 7

It needs Ray (the test venv has it: target/tmp/grail-ray-venv/bin/python).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
INC = "RuntimeError|ValueError|Error|not supported|incompatible"
EXC = r"repo_utils\|gpt_oss_triton\|FutureWarning"


def median_wall(cmd, env, runs):
    times, out = [], None
    for _ in range(runs):
        t = time.monotonic()
        r = subprocess.run(cmd, capture_output=True, env=env)
        times.append(time.monotonic() - t)
        if r.returncode != 0:
            sys.exit(f"{cmd[:3]}... failed ({r.returncode}): {r.stderr.decode()[-2000:]}")
        out = r.stdout
    return statistics.median(times), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", default=os.path.join(REPO, "bench-data", "ranks8-536853508-s1"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--grail", default=os.path.join(REPO, "target", "release", "grail"))
    a = ap.parse_args()
    ranks = sorted(os.path.join(a.ranks, f) for f in os.listdir(a.ranks) if f.endswith(".log"))
    if len(ranks) < 6:
        sys.exit(f"{a.ranks}: needs 6 rank logs (see the module docs)")
    from ray.cluster_utils import Cluster

    sys.path.insert(0, HERE)
    import ray

    import grail_ray

    tmp = tempfile.mkdtemp(prefix="grail-ray-bench-")
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "node_ip_address": "127.0.0.1"})
    try:
        for _ in range(2):
            c.add_node(num_cpus=1, node_ip_address="127.0.0.1")
        c.wait_for_nodes()
        ids = sorted([c.head_node.node_id] + [n.node_id for n in c.worker_nodes])
        files = []
        for k, nid in enumerate(ids):
            d = os.path.join(tmp, nid)
            os.makedirs(d)
            for r in ranks[2 * k : 2 * k + 2]:
                dst = os.path.join(d, os.path.basename(r))
                os.symlink(os.path.realpath(r), dst)
                files.append(dst)
        size = sum(os.path.getsize(f) for f in files)
        for f in files:
            subprocess.run(["cat", f], stdout=subprocess.DEVNULL, check=True)
        env = dict(os.environ, RAY_ADDRESS=c.address, PYTHONPATH=HERE)
        query = ["-E", INC, "--not-G", EXC, "-t", "20"]
        pattern = os.path.join(tmp, "{node_id}", "rank*.log")
        cli = [sys.executable, "-m", "grail_ray", "--grail", a.grail, *query, pattern]
        merge = [a.grail, "--merge", *query, *files]
        # One run first: the nodes' Ray workers start, the page cache is warm.
        median_wall(cli, env, 1)
        t_cli, out_cli = median_wall(cli, env, a.runs)
        t_merge, out_merge = median_wall(merge, env, a.runs)
        # Where a command's time goes: its own --json phases.
        import json

        _, js = median_wall(cli + ["--json"], env, 1)
        cli_phases = json.loads(js.splitlines()[-1])["phases_ms"]
        node_merge = []
        for k in range(3):
            t, _ = median_wall([a.grail, "--merge", *query, *files[2 * k : 2 * k + 2]], env, a.runs)
            node_merge.append(t)
        # The three nodes' searches at once, as the cluster runs them (they
        # share this machine's cores).
        node_cmds = " & ".join(
            " ".join([a.grail, "--merge", "--json", "--no-line-number", "-E", f"'{INC}'", "--not-G", f"'{EXC}'", "-t", "20", *files[2 * k : 2 * k + 2], ">/dev/null"])
            for k in range(3)
        )
        t_together, _ = median_wall(["sh", "-c", node_cmds + "; wait"], env, a.runs)
        ray.init(address=c.address, logging_level="ERROR", log_to_driver=False)
        runs = []
        for _ in range(a.runs + 1):
            t = time.monotonic()
            ans = grail_ray.search(["--grail", a.grail, *query, pattern])
            runs.append((time.monotonic() - t, ans))
        runs = sorted(runs[1:], key=lambda x: x[0])
        t_lib, ans = runs[len(runs) // 2]
        grail_ms = [n.summary["elapsed_ms"] for n in ans.nodes if n.summary]
        # The same lines: grail-ray's NODE: prefix off, the order the same.
        stripped = b"".join(line.split(b":", 1)[1] + b"\n" for line in out_cli.splitlines())
        same = stripped == out_merge
        import_t = subprocess.run(
            [sys.executable, "-c", "import time; t=time.monotonic(); import ray; print(time.monotonic()-t)"],
            capture_output=True,
            env=env,
        ).stdout.decode().strip()
        print(f"3 nodes, {size / 2**30:.2f} GiB of logs in all, {a.runs} runs, medians")
        print()
        print("| command | wall |")
        print("|---|---|")
        print(f"| `grail --merge -t 20`, 6 files on one machine | {t_merge * 1000:.1f} ms |")
        print(f"| `grail-ray -t 20` (a new process) | {t_cli * 1000:.0f} ms |")
        print(f"| `grail_ray.search`, driver connected | {t_lib * 1000:.0f} ms |")
        print(
            "| `grail --merge -t 20` over one node's 2 files | "
            + "/".join(f"{t * 1000:.0f}" for t in node_merge)
            + " ms |"
        )
        print(f"| the 3 nodes' `--merge --json -t 20` at once | {t_together * 1000:.0f} ms |")
        print()
        ph = ans.phases
        print(
            "phases of the connected call: "
            + ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in ph.items())
            + f"; grail on the nodes {min(grail_ms):.1f}-{max(grail_ms):.1f} ms"
            + f"; `import ray` {float(import_t) * 1000:.0f} ms"
        )
        print(
            "phases of the command: "
            + ", ".join(f"{k} {v:.1f} ms" for k, v in cli_phases.items())
        )
        print(f"same lines as grail --merge: {'yes' if same else 'NO'}")
        if not same:
            sys.exit(1)
    finally:
        try:
            ray.shutdown()
        except Exception:  # noqa: BLE001
            pass
        c.shutdown()
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
