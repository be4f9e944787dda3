"""The behaviour check: decompiled code run beside the original gives the same
results, exceptions and side effects (depyf.verify.behaviour).

Each module of ``tests/behaviour/`` is compiled by every installed version
3.8-3.13, decompiled here and run there beside the original on the checks it
lists (``CHECKS``; what is compared: depyf.verify.behave_code). The host's own
version runs in this process. Versions without an interpreter are skipped with
the reason printed.
"""
import os
import textwrap

import pytest

from depyf.verify import behave_code
from depyf.verify.behaviour import HOST, check_behaviour
from depyf.verify.corpus import case_files, min_version
from depyf.verify.interpreters import DECOMPILED_VERSIONS, find_interpreter, format_version

VERSIONS = [format_version(v) for v in DECOMPILED_VERSIONS]
CASES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "behaviour")
CASES = [os.path.basename(p) for p in case_files(cases_dir=CASES_DIR)]


def need(version):
    if tuple(map(int, version.split("."))) != HOST and find_interpreter(version) is None:
        print("skipping Python %s: no pyenv interpreter" % version)
        pytest.skip("no pyenv interpreter for Python %s" % version)


#: (case, version) whose decompilation still holds a failure stub (a function
#: the structurer and the fallback both refuse: it raises NotImplementedError
#: saying so, never runs other code): where a new version's passes do not yet
#: bring a construct to the IR's shape, its case waits here.
STUBBED: set = set()      # (none since 3.14/3.15 with statements inside loops decompile)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", CASES)
def test_decompiled_case_behaves_the_same(name, version):
    need(version)
    path = os.path.join(CASES_DIR, name)
    if min_version(path) > tuple(map(int, version.split("."))):
        pytest.skip("%s needs Python %s" % (name, format_version(min_version(path))))
    with open(path, encoding="utf-8") as f:
        source = f.read()
    result = check_behaviour(source, version, filename=name)
    if (name, version) in STUBBED:
        # What differs is a stub's refusal, never a wrong result; once nothing
        # differs, the case leaves STUBBED.
        text = result.format()
        assert not result.ok, "%s now behaves the same on %s: take it out of STUBBED" % (name, version)
        assert all("NotImplementedError('depyf could not decompile" in line or "'NotImplementedError'" in line
                   for line in text.splitlines() if "candidate: r" in line), text
        pytest.xfail("a failure stub in Python %s's decompilation" % version)
    assert result.ok, result.format()
    assert result.checks > 1


# -- the harness itself --------------------------------------------------------------

SOURCE = textwrap.dedent("""
    def f(x):
        TRACE.append(x)
        if x < 0:
            raise ValueError(x)
        return not not x

    def g(n):
        for i in range(n):
            yield i
        return n

    CHECKS = [("f", (0,)), ("f", (-1,)), ("g", (2,))]
""")


@pytest.mark.parametrize("version", VERSIONS)
def test_identity_behaves_the_same(version):
    need(version)
    result = check_behaviour(SOURCE, version, decompile=lambda code: SOURCE)
    assert result.ok and result.checks == 4, result.format()


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("change, label", [
    (("return not not x", "return x"), "f(0)"),
    (("TRACE.append(x)", "TRACE.append(-x)"), "f(-1)"),
    (("raise ValueError(x)", "raise KeyError(x)"), "f(-1)"),
    (("return n", "return None"), "g(2)"),
    (("yield i", "yield -i"), "g(2)"),
    (("def g(n):", "def h(n):"), "<module>")])
def test_a_changed_candidate_differs(version, change, label):
    need(version)
    candidate = SOURCE.replace(*change)
    result = check_behaviour(SOURCE, version, decompile=lambda code: candidate)
    assert not result.ok
    assert label in [d[0] for d in result.differences], result.format()


@pytest.mark.parametrize("version", VERSIONS)
def test_a_candidate_that_does_not_compile_is_an_error(version):
    need(version)
    result = check_behaviour(SOURCE, version, decompile=lambda code: "def f(:\n")
    assert not result.ok and "SyntaxError" in result.error


def test_an_endless_loop_is_stopped(monkeypatch):
    monkeypatch.setattr(behave_code, "TIME_LIMIT", 0.2)
    answer = behave_code.behave(SOURCE, SOURCE.replace("TRACE.append(x)", "while x < 0: pass"))
    outcomes = {c["label"]: c["candidate"]["outcome"] for c in answer["checks"]}
    assert outcomes["f(-1)"] == "raise TimeLimit"


def test_printed_text_is_compared():
    answer = behave_code.behave(SOURCE, SOURCE.replace("TRACE.append(x)", "print(x)"))
    check = next(c for c in answer["checks"] if c["label"] == "f(0)")
    assert check["candidate"]["printed"] == "0\n" and not check["same"]
