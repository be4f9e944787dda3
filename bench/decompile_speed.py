"""Decompilation speed: code objects per second over the standard-library corpus.

For each installed interpreter 3.8-3.13 the corpus modules are compiled by that
interpreter (not timed), read with depyf's own unmarshaller, then decompiled in
one process on one core; the table gives code objects/s per version.

Run from the project root::

    PYTHONPATH=src python3 bench/decompile_speed.py [--versions 3.8,3.13] [--modules 65]

Published decompilers for side-by-side figures are not wired in yet (they need
their own virtual environment; see the issue notes).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))

import depyf  # noqa: E402
from depyf.verify.corpus import corpus_modules  # noqa: E402
from depyf.verify.interpreters import installed_versions  # noqa: E402
from depyf.verify.roundtrip import TargetSession  # noqa: E402


def measure(version: str, count: int):
    records = []
    with TargetSession(version) as target:
        for path in corpus_modules(version, count):
            with open(path, encoding="utf-8") as f:
                source = f.read()
            try:
                records.append(target.compile_module(source, path))
            except Exception:       # a module the target cannot compile is not ours to time
                continue
    objects = sum(1 for rec in records for _ in rec.walk())
    start = time.perf_counter()
    for rec in records:
        depyf.decompile(rec)
    seconds = time.perf_counter() - start
    return len(records), objects, seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versions", default=None, help="comma-separated, default: all installed")
    parser.add_argument("--modules", type=int, default=65, help="corpus size per version")
    args = parser.parse_args(argv)
    versions = args.versions.split(",") if args.versions else [
        "%d.%d" % v if isinstance(v, tuple) else str(v) for v in installed_versions()]
    print("%-8s %8s %13s %9s %15s" % ("version", "modules", "code objects", "seconds",
                                       "code objects/s"))
    for version in versions:
        modules, objects, seconds = measure(version, args.modules)
        print("%-8s %8d %13d %9.2f %15.0f" % (version, modules, objects, seconds,
                                              objects / seconds if seconds else 0.0))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
