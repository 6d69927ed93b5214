"""What runs on each node: expanding paths, finding or receiving the grail
binary, and running it.

This module imports only the standard library: the driver registers it with
Ray's pickler *by value*, so a node needs Ray and nothing of grail-ray
installed.
"""

from __future__ import annotations

import glob
import hashlib
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

PLACEHOLDERS = ("{node_id}", "{node_ip}", "{hostname}")


def here(node_id: str, node_ip: str) -> dict:
    """The values of the path placeholders on this node."""
    return {
        "{node_id}": node_id,
        "{node_ip}": node_ip,
        "{hostname}": socket.gethostname(),
    }


def fill(template: str, values: dict) -> str:
    """`template` with each placeholder replaced by this node's value."""
    for k, v in values.items():
        template = template.replace(k, v)
    return template


def expand(templates: list[str], values: dict) -> tuple[list[str], list[str]]:
    """The paths the templates name on this node, in order, and an error for
    each template that names none. A template with glob characters is
    expanded (sorted, as a shell does); one without is kept as it is."""
    paths, errors = [], []
    for t in templates:
        p = fill(t, values)
        if glob.has_magic(p):
            found = sorted(glob.glob(p))
            if not found:
                errors.append(f"{p}: no file matches")
            paths.extend(found)
        else:
            paths.append(p)
    return paths, errors


def cache_dir() -> str:
    """Where a shipped binary is kept on this node."""
    base = os.environ.get("GRAIL_RAY_CACHE")
    if not base:
        base = os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "grail-ray"
        )
    return base


def cached_path(digest: str) -> str:
    return os.path.join(cache_dir(), digest[:32], "grail")


def this_platform() -> str:
    """`os-machine`, e.g. `linux-x86_64`: a binary runs where this matches."""
    return f"{sys.platform}-{platform.machine()}"


def probe(job: dict) -> dict:
    """Phase one on a node: expand the paths, identify each file, and say
    which grail binary the search would use.

    `job`: `templates` (PATH arguments), `rotated` (--rotated values),
    `grail` (an explicit --grail path or None), `digest` (sha256 of the
    driver's binary), `node_id`, `node_ip`.
    """
    values = here(job["node_id"], job["node_ip"])
    paths, errors = expand(job["templates"], values)
    rotated = [fill(r, values) for r in job["rotated"]]
    files = []
    for p in paths:
        try:
            st = os.stat(p)
            files.append({"path": p, "id": [st.st_dev, st.st_ino]})
        except OSError as e:
            errors.append(f"{p}: {e.strerror}")
    binary = None
    explicit = job["grail"]
    if explicit and os.path.isfile(explicit) and os.access(explicit, os.X_OK):
        binary = explicit
    elif not explicit:
        binary = shutil.which("grail")
    cached = job["digest"] and os.access(cached_path(job["digest"]), os.X_OK)
    return {
        "hostname": values["{hostname}"],
        "files": files,
        "rotated": rotated,
        "errors": errors,
        "binary": binary,
        "cached": bool(cached),
        "platform": this_platform(),
        "pid": os.getpid(),
    }


def install(blob: bytes, digest: str) -> str:
    """Keep the driver's binary in this node's cache; its path."""
    path = cached_path(digest)
    if os.access(path, os.X_OK):
        return path
    if hashlib.sha256(blob).hexdigest() != digest:
        raise RuntimeError("the grail binary received is not the one sent (checksum differs)")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".grail-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def _die_with_parent() -> None:
    """In the child: end when the Ray worker that started it ends (a
    cancelled task, a removed node), so no search outlives its task."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def search(job: dict, blob: bytes | None) -> dict:
    """Phase two on a node: run grail over this node's files.

    `job`: `binary` (a path, or None to use `blob`), `digest`, `argv`
    (grail's options, with `{pattern-file:K}` standing for the K-th file of
    `pattern_files`), `pattern_files` (their contents), `operands`
    (patterns and paths, after `--`), `env` (locale variables), `timeout`
    (seconds or None).
    """
    t0 = time.monotonic()
    binary = job["binary"] or install(blob, job["digest"])
    with tempfile.TemporaryDirectory(prefix="grail-ray-") as tmp:
        argv = []
        for a in job["argv"]:
            if a.startswith("{pattern-file:") and a.endswith("}"):
                k = int(a[len("{pattern-file:") : -1])
                p = os.path.join(tmp, f"patterns-{k}")
                with open(p, "wb") as f:
                    f.write(job["pattern_files"][k])
                a = p
            argv.append(a)
        env = dict(os.environ)
        for k in ("LC_ALL", "LC_CTYPE", "LANG", "LANGUAGE"):
            env.pop(k, None)
        env.update(job["env"])
        cmd = [binary, *argv, "--", *job["operands"]]

        def result(rc, stdout=b"", stderr=b"", timed_out=False) -> dict:
            return {
                "rc": rc,
                "stdout": stdout,
                "stderr": stderr,
                "elapsed": time.monotonic() - t0,
                "binary": binary,
                "timed_out": timed_out,
            }

        try:
            done = subprocess.run(
                cmd,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                env=env,
                timeout=job["timeout"],
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
            )
        except subprocess.TimeoutExpired:
            return result(None, timed_out=True)
        except OSError as e:
            return result(None, stderr=f"cannot run {binary}: {e.strerror}\n".encode())
    return result(done.returncode, done.stdout, done.stderr)
