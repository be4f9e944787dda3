"""Longer runs of the generated corpus: programs from Hypothesis strategies,
round-tripped on this host, each distinct failure shown minimized.

The bounded run is tests/generated_suite.py (run by tests/test_generated.py); this is the same trip
(depyf.verify.host_trip) for as many examples as asked. Each program is
compiled by the interpreter running this script, decompiled by depyf,
recompiled and compared code object by code object (the strict rule). The
failures are grouped by kind (the strict rule's label of the first
difference); the smallest program of each kind is shrunk
(depyf.verify.minimize) and printed with what depyf wrote for it: material
for a regression case in tests/test_generated_regressions.py.

Needs hypothesis and hypothesmith (the ``test`` extra); runs under any host
venv that has them.

Example::

    $ PYTHONPATH=src python tools/fuzz_roundtrip.py --examples 2000
    $ PYTHONPATH=src python tools/fuzz_roundtrip.py --strategy hypothesmith --examples 500 --seed 7
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))  # generated_programs

from depyf.verify.host_trip import host_compile, host_trip  # noqa: E402
from depyf.verify.minimize import minimize  # noqa: E402


def parse_args(argv=None):
    """The command line as a Namespace."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=1000, metavar="N",
                        help="programs to generate (default 1000)")
    parser.add_argument("--strategy", choices=("structured", "hypothesmith", "all"),
                        default="all", help="which programs (default all: both, N each)")
    parser.add_argument("--seed", type=int, default=0, help="Hypothesis seed (default 0)")
    parser.add_argument("--show", type=int, default=20, metavar="K",
                        help="failure kinds shown, most frequent first (default 20)")
    parser.add_argument("--no-minimize", action="store_true",
                        help="show the smallest failing program of each kind as generated")
    return parser.parse_args(argv)


def strategies(which):
    """(label, strategy) pairs for ``--strategy``."""
    import generated_programs as gp
    out = []
    if which in ("structured", "all"):
        out.append(("structured", gp.structured_programs()))
    if which in ("hypothesmith", "all"):
        out.append(("hypothesmith", gp.hypothesmith_programs()))
    return out


class Tally:
    """Counts of one run and the smallest failing source of each kind."""

    def __init__(self):
        self.examples = 0
        self.ok = 0
        self.kinds = collections.Counter()
        self.smallest = {}

    def add(self, source):
        self.examples += 1
        trip = host_trip(source)
        if trip.ok:
            self.ok += 1
            return
        self.kinds[trip.kind] += 1
        if trip.kind not in self.smallest or len(source) < len(self.smallest[trip.kind]):
            self.smallest[trip.kind] = source


def explore(strategy, examples, seed, tally):
    """Draw ``examples`` programs from ``strategy`` into ``tally`` (never fails:
    every program is recorded, so the search goes on past the first failure)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hseed

    @hseed(seed)
    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(source):
        tally.add(source)
    run()


def same_kind(kind):
    """The minimizer's predicate: the host compiles it and it fails as ``kind``."""
    def fails(source):
        return host_compile(source) is not None and host_trip(source).kind == kind
    return fails


def main(argv=None) -> int:
    args = parse_args(argv)
    warnings.simplefilter("ignore")  # generated programs warn by the hundred
    print("host Python %d.%d" % sys.version_info[:2])
    tally = Tally()
    for label, strategy in strategies(args.strategy):
        start = time.perf_counter()
        before = tally.examples
        explore(strategy, args.examples, args.seed, tally)
        print("%s: %d programs in %.1fs" % (label, tally.examples - before,
                                           time.perf_counter() - start), flush=True)
    failed = tally.examples - tally.ok
    print("%d programs, %d round-trip, %d fail (%d kinds)" % (
        tally.examples, tally.ok, failed, len(tally.kinds)))
    for kind, count in tally.kinds.most_common(args.show):
        source = tally.smallest[kind]
        if not args.no_minimize:
            source = minimize(source, same_kind(kind))
        print()
        print("=" * 72)
        print("%d x %s" % (count, kind))
        print(host_trip(source).report())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
