"""The generated corpus, bounded: programs drawn by Hypothesis round-trip on the host.

Run by tests/test_generated.py in an interpreter of its own: Hypothesis's
draws, derandomized, still follow what else the process has imported and
allocated, so inside the whole suite they would differ from a run of this
file alone; in a fresh process they are the same every time.

Each program (tests/generated_programs.py: hypothesmith's, and structured
ones made here) is compiled by the interpreter running the tests, decompiled
by depyf, recompiled and compared code object by code object
(depyf.verify.host_trip, the strict rule). The runs are derandomized with
a fixed number of examples and pinned hypothesis/hypothesmith versions, so
CI draws the same programs every time; tools/fuzz_roundtrip.py runs longer.

A program that fails with a kind an open regression case of
tests/test_generated_regressions.py shows on this host is tolerated: that
bug is known and has its case. Any other failure fails the test with the
program shrunk by depyf.verify.minimize: add it there as a case.
"""
from __future__ import annotations

import functools

import pytest

pytest.importorskip("hypothesis")
pytest.importorskip("hypothesmith")

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402

from depyf.verify.host_trip import host_compile, host_trip  # noqa: E402
from depyf.verify.minimize import minimize  # noqa: E402
from generated_programs import hypothesmith_programs, structured_programs  # noqa: E402
from test_generated_regressions import open_kinds  # noqa: E402

#: Fixed budgets: about 5 s (structured) and 10 s (hypothesmith, whose
#: LibCST programs cost a third of a second each to draw) of one core.
STRUCTURED_EXAMPLES = 250
HYPOTHESMITH_EXAMPLES = 25

# No shrink phase: Hypothesis can spend minutes shrinking a generated
# program; check() shrinks a failure itself, within a bounded number of trips.
BOUNDED = settings(derandomize=True, database=None, deadline=None,
                   phases=(Phase.explicit, Phase.generate, Phase.target),
                   suppress_health_check=list(HealthCheck))


@functools.lru_cache(maxsize=None)
def tolerated() -> frozenset:
    return frozenset(open_kinds())


def check(source: str) -> None:
    """The program round-trips, or fails the way an open regression case does."""
    trip = host_trip(source)
    if trip.ok or trip.kind in tolerated():
        return
    kind = trip.kind
    small = minimize(source, lambda s: host_compile(s) is not None and host_trip(s).kind == kind)
    pytest.fail("a new failure kind; add a case to tests/test_generated_regressions.py:\n"
                + host_trip(small).report() + "\n--- as generated:\n" + source, pytrace=False)


@settings(BOUNDED, max_examples=STRUCTURED_EXAMPLES)
@given(structured_programs())
def test_structured_programs_round_trip(source):
    check(source)


@settings(BOUNDED, max_examples=HYPOTHESMITH_EXAMPLES)
@given(hypothesmith_programs())
def test_hypothesmith_programs_round_trip(source):
    check(source)


@settings(BOUNDED, max_examples=15)
@given(hypothesmith_programs())
def test_harness_accepts_the_original_source(source):
    # The comparison itself, on odd programs: the original source as the
    # "decompiled" text must be deep-equal, or the failures above mean nothing.
    trip = host_trip(source, decompile=lambda code: source)
    assert trip.ok, trip.report()


