"""Fail when a locked dependency (normal, dev or build) declares a
rust-version above grail's own: the declared rust-version is then a lie.

A full `cargo +1.85 test` is not run because these machines have one Rust
toolchain and cannot fetch another; clippy's `incompatible_msrv` lint (on by
default) checks grail's own use of the standard library against it."""
import json
import subprocess
import sys

meta = json.loads(subprocess.check_output(
    ["cargo", "metadata", "--format-version", "1", "--locked"]))


def version(s):
    parts = [int(x) for x in s.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


root = next(p for p in meta["packages"] if p["name"] == "grail")
msrv = version(root["rust_version"])
used = {n["id"] for n in meta["resolve"]["nodes"]}
bad = [f'{p["name"]} {p["version"]} needs Rust {p["rust_version"]}'
       for p in meta["packages"]
       if p["id"] in used and p["rust_version"] and version(p["rust_version"]) > msrv]
if bad:
    sys.exit(f'rust-version {root["rust_version"]} is not enough for:\n  ' + "\n  ".join(bad))
print(f'msrv: all {len(used)} locked packages build with Rust {root["rust_version"]}')
