"""grail-ray: search every node of a Ray cluster with grail, one timeline.

From Python::

    import grail_ray
    answer = grail_ray.search(["-E", "Error|Traceback", "-t", "20",
                               "/tmp/ray/session_latest/logs/*.err"])
    for rec in answer.records:          # grail's --json objects, merged,
        print(rec["node"], rec["path"], rec["text"])   # each with its node
    failed = [n.label for n in answer.nodes if n.errors]

`search` takes grail-ray's command line without the program name and
returns an `Answer`; `main` is the `grail-ray` command.
"""

from __future__ import annotations

__version__ = "0.1.0"

from .cluster import Answer, Query, run_query  # noqa: E402


def search(argv: list[str], address: str | None = None) -> Answer:
    """Run one grail-ray command line (without the program name) on the
    cluster at `address` (default: `RAY_ADDRESS`, else the local cluster;
    an already initialised Ray connection is used as it is)."""
    return run_query(Query(argv), address=address)


__all__ = ["Answer", "Query", "search", "run_query", "__version__"]
