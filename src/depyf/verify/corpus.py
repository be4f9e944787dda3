"""The round-trip corpora: the stdlib yardstick list, more stdlib, construct cases.

* :func:`stdlib_modules` resolves the 65 entries of the yardstick list
  (``data/stdlib-modules.txt`` of this package) against one interpreter's own ``lib/python3.X``
  (each version is measured on its own copy of the standard library).
* :func:`more_stdlib_modules` adds further pure-Python modules of that
  interpreter, in a fixed order, so the corpus can grow past the yardstick.
* :func:`case_files` lists ``tests/cases/*.py`` that a version can compile
  (by their ``# min-version: 3.X`` first line).
* :func:`thirdparty_modules` resolves the third-party list
  (``data/thirdparty-modules.txt``, import names) in the interpreter running
  the tool, and :func:`thirdparty_corpus` keeps those a target version can
  compile: one source per module, compiled by every version.

Example::

    >>> from depyf.verify.corpus import corpus_modules
    >>> paths = corpus_modules("3.12", 100)          # doctest: +SKIP
    >>> len(paths), paths[0].endswith("json/decoder.py")  # doctest: +SKIP
    (100, True)
"""
from __future__ import annotations

import functools
import importlib.util
import os
import re
from typing import List, NamedTuple, Optional, Sequence, Tuple

from depyf.verify.interpreters import Version, format_version, parse_version

#: The repository root (``src/depyf/verify`` -> three folders up).
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

#: The yardstick list, package data of depyf.verify.
CORPUS_LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "stdlib-modules.txt")

CASES_DIR = os.path.join(REPO_ROOT, "tests", "cases")

#: The third-party list, package data of depyf.verify.
THIRDPARTY_LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                               "thirdparty-modules.txt")

#: Folders never taken into the extra stdlib corpus: tests and their data
#: (lib2to3's grammar test data is Python 2), third-party code, IDLE.
SKIPPED_DIRS = frozenset(["test", "tests", "idle_test", "site-packages", "dist-packages",
                          "idlelib", "lib2to3", "__pycache__", "_bundled"])

_MIN_VERSION = re.compile(r"#\s*min-version:\s*(\d+\.\d+)")


def corpus_list_path() -> str:
    """Where the yardstick list is: ``$DEPYF_CORPUS_LIST`` (another list to
    measure by), else the one this package carries.

    Example::

        >>> os.path.basename(corpus_list_path())
        'stdlib-modules.txt'
    """
    env = os.environ.get("DEPYF_CORPUS_LIST")
    if env:
        if not os.path.isfile(env):
            raise FileNotFoundError("$DEPYF_CORPUS_LIST names %s, which is not a file" % env)
        return env
    return CORPUS_LIST


def read_corpus_list(path: Optional[str] = None) -> List[Tuple[str, ...]]:
    """The list's entries in order, each a tuple of alternatives.

    Example::

        >>> read_corpus_list()[28]                     # doctest: +SKIP
        ('pathlib/__init__.py', 'pathlib.py')
    """
    with open(path or corpus_list_path(), encoding="utf-8") as f:
        lines = [line.split("#", 1)[0].strip() for line in f]
    return [tuple(a.strip() for a in line.split("|")) for line in lines if line]


@functools.lru_cache(maxsize=None)
def stdlib_root(version) -> str:
    """The target interpreter's ``lib/python3.X`` folder.

    Example::

        >>> stdlib_root("3.8")                          # doctest: +SKIP
        '/home/me/.pyenv/versions/3.8.18/lib/python3.8'
    """
    from depyf.verify.reader_check import stdlib_dir
    root = stdlib_dir(parse_version(version))
    if root is None:
        raise FileNotFoundError("no interpreter (or its lib folder) for Python %s"
                                % format_version(version))
    return root


def stdlib_modules(version, list_path: Optional[str] = None) -> List[str]:
    """Absolute paths of the yardstick modules for ``version``, in list order.

    An "a|b" entry takes the first alternative present in that version's lib
    folder; an entry with none raises FileNotFoundError (the yardstick must
    be complete).

    Example::

        >>> [os.path.basename(p) for p in stdlib_modules("3.8")[-2:]]   # doctest: +SKIP
        ['sre_parse.py', 'wave.py']
    """
    root = stdlib_root(version)
    out = []
    for alternatives in read_corpus_list(list_path):
        for rel in alternatives:
            path = os.path.join(root, rel)
            if os.path.isfile(path):
                out.append(path)
                break
        else:
            raise FileNotFoundError("Python %s has none of %s" % (
                format_version(version), " | ".join(alternatives)))
    return out


def _candidate_files(root: str) -> List[str]:
    """Every .py under ``root`` outside SKIPPED_DIRS, relative, in a fixed order:
    top-level modules first, then packages, codec tables (encodings/) last."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("config-")]
        rel_folder = os.path.relpath(folder, root)
        for name in files:
            if name.endswith(".py"):
                found.append(os.path.normpath(os.path.join(rel_folder, name)).replace(os.sep, "/"))

    def key(rel):
        return (rel.startswith("encodings/"), "/" in rel, rel)
    return sorted(found, key=key)


def more_stdlib_modules(version, n: int, exclude: Sequence[str] = ()) -> List[str]:
    """Up to ``n`` further stdlib modules of ``version`` beyond the yardstick.

    Deterministic: top-level modules by name, then package modules, then
    ``encodings/``; skips tests, site-packages, idlelib, lib2to3 and any file
    that interpreter cannot compile (checked in the target).

    Example::

        >>> [os.path.basename(p) for p in more_stdlib_modules("3.11", 2)]  # doctest: +SKIP
        ['__future__.py', '__hello__.py']
    """
    from depyf.verify.roundtrip import get_session, read_source
    if n <= 0:
        return []
    root = stdlib_root(version)
    taken = set(os.path.realpath(p) for p in stdlib_modules(version)) | set(
        os.path.realpath(p) for p in exclude)
    session = get_session(version)
    out = []
    for rel in _candidate_files(root):
        path = os.path.join(root, rel)
        if os.path.realpath(path) in taken:
            continue
        try:
            source = read_source(path)
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        if session.check(source, path) is None:
            out.append(path)
            if len(out) >= n:
                break
    return out


def corpus_modules(version, count: Optional[int] = None) -> List[str]:
    """The first ``count`` modules of the corpus: the yardstick, then more.

    ``None`` means the yardstick list alone (65 modules).

    Example::

        >>> len(corpus_modules("3.9")), len(corpus_modules("3.9", 80))   # doctest: +SKIP
        (65, 80)
    """
    base = stdlib_modules(version)
    if count is None:
        return base
    if count <= len(base):
        return base[:count]
    return base + more_stdlib_modules(version, count - len(base))


def min_version(path: str) -> Version:
    """A case file's ``# min-version: 3.X`` (first line), default 3.8.

    Example::

        >>> min_version(os.path.join(CASES_DIR, "match_stmt.py"))   # doctest: +SKIP
        (3, 10)
    """
    with open(path, encoding="utf-8") as f:
        first = f.readline()
    match = _MIN_VERSION.search(first)
    return parse_version(match.group(1)) if match else (3, 8)


def case_files(version=None, cases_dir: str = CASES_DIR) -> List[str]:
    """``tests/cases/*.py``, sorted; with ``version``, only those it can compile.

    Example::

        >>> [os.path.basename(p) for p in case_files("3.8")][:2]   # doctest: +SKIP
        ['classes.py', 'closures.py']
    """
    paths = sorted(os.path.join(cases_dir, n) for n in os.listdir(cases_dir) if n.endswith(".py"))
    if version is None:
        return paths
    version = parse_version(version)
    return [p for p in paths if min_version(p) <= version]


# --------------------------------------------------------------------------
# Third-party modules


class Resolved(NamedTuple):
    """One entry of the third-party list: the import name chosen and its
    source file, or ``path`` None and the ``reason`` it is skipped."""
    name: str
    path: Optional[str]
    reason: Optional[str] = None


def module_source(name: str) -> Optional[str]:
    """The .py file that ``import name`` would load here, found without
    importing anything (importing torch takes seconds and runs its code);
    None if there is none.

    Only the top-level package is looked up by importlib (which imports
    nothing for a top-level name); submodules are files under its folders.

    Example::

        >>> module_source("json.decoder").endswith("decoder.py")
        True
        >>> module_source("json.no_such_module") is None
        True
    """
    top, _, rest = name.partition(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if not rest:
        origin = spec.origin or ""
        return origin if origin.endswith(".py") and os.path.isfile(origin) else None
    parts = rest.split(".")
    for folder in spec.submodule_search_locations or ():
        base = os.path.join(folder, *parts)
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
    return None


def package_installed(name: str) -> bool:
    """Whether the top-level package of ``name`` is importable here.

    Example::

        >>> package_installed("json.decoder"), package_installed("no_such_pkg.x")
        (True, False)
    """
    try:
        return importlib.util.find_spec(name.partition(".")[0]) is not None
    except (ImportError, ValueError):
        return False


def thirdparty_modules(list_path: Optional[str] = None) -> List[Resolved]:
    """Every entry of the third-party list, resolved in this interpreter.

    An entry whose package is not installed is skipped with that reason; an
    entry whose package is installed but has none of the alternatives raises
    FileNotFoundError (the list has gone stale for that release).

    Example::

        >>> [r.name for r in thirdparty_modules()][:2]          # doctest: +SKIP
        ['torch._tensor', 'torch.functional']
    """
    out = []
    for alternatives in read_corpus_list(list_path or THIRDPARTY_LIST):
        for name in alternatives:
            path = module_source(name)
            if path is not None:
                out.append(Resolved(name, path))
                break
        else:
            if any(package_installed(name) for name in alternatives):
                raise FileNotFoundError("no module %s in the installed package"
                                        % " | ".join(alternatives))
            out.append(Resolved(alternatives[0], None, "package %s not installed"
                                % alternatives[0].partition(".")[0]))
    return out


def thirdparty_corpus(version, list_path: Optional[str] = None) -> Tuple[List[str], List[Resolved]]:
    """``(paths, skipped)`` for ``version``: the listed modules found here
    that the target compiles, and those skipped (package absent, or the
    target rejects the syntax: a module written for 3.10+ on 3.8).

    Example::

        >>> paths, skipped = thirdparty_corpus("3.8")          # doctest: +SKIP
        >>> len(paths), skipped[0].reason                        # doctest: +SKIP
        (52, 'Python 3.8 rejects it: SyntaxError: invalid syntax (..., line 1203)')
    """
    from depyf.verify.roundtrip import get_session, read_source
    session = get_session(version)
    paths, skipped = [], []
    for entry in thirdparty_modules(list_path):
        if entry.path is None:
            skipped.append(entry)
            continue
        try:
            error = session.check(read_source(entry.path), entry.path)
        except (OSError, SyntaxError, UnicodeDecodeError) as exc:
            error = "unreadable: %s" % exc
        if error is None:
            paths.append(entry.path)
        else:
            skipped.append(entry._replace(reason="Python %s rejects it: %s"
                                          % (format_version(version), error)))
    return paths, skipped
