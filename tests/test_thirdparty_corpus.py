"""The third-party corpus list resolves in the interpreter running the tests.

Every entry of src/depyf/verify/data/thirdparty-modules.txt is found as a
source file of its installed package, or skipped because that package is
not installed here (the 3.10/3.12/3.13 test venvs have no torch). A module
missing from an installed package fails: the list went stale for a release.
"""
from __future__ import annotations

import os
import sys

import pytest

from depyf.verify.corpus import (THIRDPARTY_LIST, module_source, package_installed,
                                 read_corpus_list, thirdparty_corpus, thirdparty_modules)
from depyf.verify.interpreters import find_interpreter


def test_every_listed_module_is_found_or_its_package_is_absent():
    resolved = thirdparty_modules()
    assert 50 <= len(resolved) <= 70
    for entry in resolved:
        if entry.path is None:
            assert not package_installed(entry.name), entry
            assert entry.reason == "package %s not installed" % entry.name.split(".")[0]
        else:
            assert entry.path.endswith(".py") and os.path.isfile(entry.path), entry
            tail = entry.name.split(".")[-1]
            assert tail in (os.path.basename(entry.path)[:-3],
                            os.path.basename(os.path.dirname(entry.path))), entry


def test_the_list_names_no_paths_and_no_entry_twice():
    names = [n for alternatives in read_corpus_list(THIRDPARTY_LIST) for n in alternatives]
    assert len(names) == len(set(names))
    assert all(n.replace("_", "a").replace(".", "a").isalnum() for n in names), names


def test_the_test_venv_packages_are_all_found():
    # pytest and the test extra are installed wherever this runs.
    by_name = {r.name: r for r in thirdparty_modules()}
    for name in ("_pytest.python", "hypothesis.core", "libcst._nodes.statement", "lark.lark"):
        assert by_name[name].path is not None, name


@pytest.fixture
def fake_packages(tmp_path, monkeypatch):
    """A package whose __init__ raises if imported, and a list naming it."""
    pkg = tmp_path / "depyf_fake_pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise RuntimeError('imported')\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "plain.py").write_text("def f(x):\n    return x + 1\n")
    (pkg / "sub" / "matcher.py").write_text("match x:\n    case 1:\n        pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    listing = tmp_path / "list.txt"
    listing.write_text("# a comment\ndepyf_fake_pkg.plain\ndepyf_fake_pkg.sub.matcher\n"
                       "depyf_absent_pkg.mod\n")
    return listing


def test_modules_are_found_without_importing_them(fake_packages):
    plain = module_source("depyf_fake_pkg.plain")
    assert plain.endswith(os.path.join("depyf_fake_pkg", "plain.py"))
    assert module_source("depyf_fake_pkg.sub").endswith(os.path.join("sub", "__init__.py"))
    assert module_source("depyf_fake_pkg.nothing") is None
    assert "depyf_fake_pkg" not in sys.modules


def test_absent_packages_are_skipped_and_stale_entries_raise(fake_packages, tmp_path):
    resolved = thirdparty_modules(str(fake_packages))
    assert [r.path is not None for r in resolved] == [True, True, False]
    assert resolved[2].reason == "package depyf_absent_pkg not installed"
    stale = tmp_path / "stale.txt"
    stale.write_text("depyf_fake_pkg.gone|depyf_fake_pkg.also_gone\n")
    with pytest.raises(FileNotFoundError, match="gone"):
        thirdparty_modules(str(stale))


@pytest.mark.parametrize("version, kept", [("3.9", 1), ("3.10", 2)])
def test_a_target_that_rejects_the_syntax_skips_the_module(fake_packages, version, kept):
    if find_interpreter(version) is None:
        pytest.skip("no pyenv interpreter for Python %s" % version)
    paths, skipped = thirdparty_corpus(version, str(fake_packages))
    assert len(paths) == kept
    reasons = [r.reason for r in skipped]
    assert "package depyf_absent_pkg not installed" in reasons
    if kept == 1:
        assert any(r.startswith("Python 3.9 rejects it: SyntaxError") for r in reasons), reasons
