"""The generated corpus, bounded (tests/generated_suite.py), and the harness
that judges it.

The Hypothesis runs go in a fresh interpreter of their own: derandomized
draws still depend on what the process imported and allocated before them
(after other tests they differ), and CI must draw the same programs as a
developer running them alone::

    $ PYTHONPATH=src python -m pytest -q -p no:cacheprovider tests/generated_suite.py
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("hypothesis")
pytest.importorskip("hypothesmith")

from depyf.verify.host_trip import host_trip  # noqa: E402

TESTS = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(TESTS, "generated_suite.py")


@pytest.mark.parametrize("name", ["test_structured_programs_round_trip",
                                  "test_hypothesmith_programs_round_trip",
                                  "test_harness_accepts_the_original_source"])
def test_generated_programs(name):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.join(os.path.dirname(TESTS), "src"), TESTS, os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "no:randomly", SUITE + "::" + name],
                         cwd=os.path.dirname(TESTS), env=env, capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]


def _raise(code):
    raise IndexError("boom")


@pytest.mark.parametrize("decompile, kinds", [
    (lambda code: "def f(a):\n    return a - 1\n", ("arg:BINARY_OP", "BINARY_ADD/BINARY_SUBTRACT")),
    (lambda code: "def f(a):\n    return a +\n", ("no compile: SyntaxError",)),
    (_raise, ("crash: IndexError",)),
    (lambda code: "'depyf: unstructured fallback (odd jump at 12)'\ndef f(a):\n    return a\n",
     ("fallback: odd jump at N",)),
], ids=["wrong", "no-compile", "crash", "fallback"])
def test_harness_rejects_a_wrong_decompilation(decompile, kinds):
    trip = host_trip("def f(a):\n    return a + 1\n", decompile=decompile)
    assert not trip.ok and trip.kind in kinds, trip.report()
