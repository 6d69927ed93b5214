"""A real Ray cluster on this machine for the tests: a head and two worker
nodes, all bound to 127.0.0.1, stopped when the tests end (also when one
fails). Each node has its own log directory, named by its node id."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile

# Before Ray is imported: every Ray process binds to 127.0.0.1.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import pytest  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def grail_bin() -> str:
    """The grail binary under test (cargo test passes it in GRAIL_BIN)."""
    b = os.environ.get("GRAIL_BIN") or os.path.join(REPO, "target", "release", "grail")
    if not os.access(b, os.X_OK):
        raise RuntimeError(f"no grail binary at {b}: build it (cargo build --release) or set GRAIL_BIN")
    return b


class Env:
    """The cluster and what the tests put on its nodes."""

    def __init__(self, cluster, tmp):
        self.cluster = cluster
        self.tmp = tmp
        self.bindir = os.path.join(tmp, "bin")
        self.logs = os.path.join(tmp, "logs")
        self.cache_dirs = {}
        self.grail = grail_bin()
        self.nodes = {}  # node_id -> ray Node

    def env(self, **extra) -> dict:
        """The environment a grail-ray command runs in: grail on PATH, the
        cluster's address, grail-ray importable from the source tree."""
        e = dict(os.environ)
        e["PATH"] = self.bindir + os.pathsep + e.get("PATH", "")
        e["RAY_ADDRESS"] = self.cluster.address
        e["PYTHONPATH"] = os.path.join(REPO, "python")
        e.update(extra)
        return e

    def run(self, *args, timeout=300, **extra):
        cmd = [sys.executable, "-m", "grail_ray", *args]
        return subprocess.run(cmd, capture_output=True, env=self.env(**extra), timeout=timeout)

    def alive(self) -> set:
        """The ids of the nodes the cluster holds alive (asked from a
        separate driver, so this process never joins the cluster)."""
        code = (
            "import ray; ray.init(address='auto', logging_level='ERROR', log_to_driver=False); "
            "print(' '.join(n['NodeID'] for n in ray.nodes() if n['Alive']))"
        )
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, env=self.env(), timeout=120)
        assert r.returncode == 0, r.stderr
        return set(r.stdout.decode().split())

    def node_env(self, with_grail: bool, name: str, **extra) -> dict:
        path = "/usr/local/bin:/usr/bin:/bin"
        if with_grail:
            path = self.bindir + ":" + path
        cache = os.path.join(self.tmp, "cache", name)
        env = {"PATH": path, "GRAIL_RAY_CACHE": cache, **extra}
        return env

    def add_node(self, name: str, with_grail: bool = True, **extra):
        env = self.node_env(with_grail, name, **extra)
        n = self.cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1", env_vars=env)
        self.cluster.wait_for_nodes()
        self.cache_dirs[n.node_id] = env["GRAIL_RAY_CACHE"]
        self.nodes[n.node_id] = n
        return n


@pytest.fixture(scope="session")
def cluster():
    from ray.cluster_utils import Cluster

    tmp = tempfile.mkdtemp(prefix="grail-ray-test-")
    c = None
    try:
        env = Env(None, tmp)
        os.makedirs(env.bindir)
        os.symlink(grail_bin(), os.path.join(env.bindir, "grail"))
        head_env = env.node_env(True, "head")
        c = Cluster(
            initialize_head=True,
            head_node_args={
                "num_cpus": 1,
                "node_ip_address": "127.0.0.1",
                "include_dashboard": False,
                "env_vars": head_env,
            },
        )
        env.cluster = c
        env.cache_dirs[c.head_node.node_id] = head_env["GRAIL_RAY_CACHE"]
        env.nodes[c.head_node.node_id] = c.head_node
        env.add_node("worker1", with_grail=True)
        # This node has no grail on PATH: it gets the driver's binary.
        env.add_node("worker2", with_grail=False)
        yield env
    finally:
        if c is not None:
            c.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


def write_wrapper(path: str, real: str) -> None:
    """A grail that, on a node whose environment sets GRAIL_TEST_SLOW,
    says it started (GRAIL_TEST_MARK) and sleeps before searching."""
    with open(path, "w") as f:
        f.write(
            "#!/bin/sh\n"
            'if [ -n "$GRAIL_TEST_SLOW" ]; then\n'
            '  [ -n "$GRAIL_TEST_MARK" ] && : > "$GRAIL_TEST_MARK"\n'
            '  sleep "$GRAIL_TEST_SLOW"\n'
            "fi\n"
            f'exec "{real}" "$@"\n'
        )
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
