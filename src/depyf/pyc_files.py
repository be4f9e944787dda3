"""Decompiling .pyc files and folders of them: where each output goes, the
work of one file, a parallel run over many, and its summary.

This is the engine of ``depyf decompile``; it is plain Python so that other
tools can call it too.

Example::

    >>> from depyf.pyc_files import decompile_paths
    >>> summary = decompile_paths(["build/__pycache__"], out="decompiled", jobs=2)  # doctest: +SKIP
    >>> print(summary.format())                                                      # doctest: +SKIP
    3 files, 41 code objects: 41 structured, 0 fallback, 0 failed; 0 files unreadable; validated: 40 identical, 1 equivalent, 0 fallback, 0 unverified
"""
from __future__ import annotations

import logging
import os
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

log = logging.getLogger("depyf")

#: ``mod.cpython-38.pyc``, ``mod.cpython-311.opt-1.pyc``: PEP 3147 / PEP 488 names
_TAGGED = re.compile(r"^(?P<stem>.+?)\.(?:cpython|pypy)-\d+(?P<opt>\.opt-\d+)?\.pyc$")


@dataclass
class FileResult:
    """What happened to one .pyc file."""
    path: str
    out: Optional[str] = None
    version: Optional[Tuple[int, int]] = None
    code_objects: int = 0
    fallbacks: List[Tuple[str, str]] = field(default_factory=list)
    stubs: List[Tuple[str, str]] = field(default_factory=list)
    error: Optional[str] = None
    #: --verify: (deep-equal code objects, code objects), or None when not checked
    verified: Optional[Tuple[int, int]] = None
    verify_error: Optional[str] = None
    #: --verify: (code object path, first difference) of each object that differs
    verify_diffs: List[Tuple[str, str]] = field(default_factory=list)
    source: Optional[str] = None
    #: validation: verdict -> code objects (depyf.decompiler.verdicts.VERDICTS); None when skipped
    counts: Optional[Dict[str, int]] = None
    #: why the file's code objects are unverified, if they are
    unverified: Optional[str] = None


@dataclass
class Summary:
    """Totals over a run; ``format()`` is the line printed at the end."""
    results: List[FileResult] = field(default_factory=list)

    @property
    def failed_files(self) -> List[FileResult]:
        return [r for r in self.results if r.error is not None]

    def format(self) -> str:
        objects = sum(r.code_objects for r in self.results)
        fallbacks = sum(len(r.fallbacks) for r in self.results)
        stubs = sum(len(r.stubs) for r in self.results)
        text = ("%d files, %d code objects: %d structured, %d fallback, %d failed; "
                "%d files unreadable" % (len(self.results), objects,
                                         objects - fallbacks - stubs, fallbacks, stubs,
                                         len(self.failed_files)))
        validated = [r.counts for r in self.results if r.counts is not None]
        if validated:
            from .decompiler.verdicts import VERDICTS, format_counts
            text += "; validated: " + format_counts(
                {v: sum(c.get(v, 0) for c in validated) for v in VERDICTS})
        checked = [r.verified for r in self.results if r.verified is not None]
        if checked:
            same = sum(v[0] for v in checked)
            total = sum(v[1] for v in checked)
            text += "; verified %d files: %d/%d code objects identical (%.2f%%)" % (
                len(checked), same, total, 100.0 * same / total if total else 100.0)
        return text

    @property
    def ok(self) -> bool:
        return not self.failed_files and not any(r.stubs for r in self.results)


def find_pyc_files(paths: Iterable[str]) -> List[Tuple[str, str]]:
    """``(pyc path, root it was found under)`` for files and folders, folders
    walked recursively in sorted order.

    >>> find_pyc_files(["pkg"])         # doctest: +SKIP
    [('pkg/__pycache__/a.cpython-38.pyc', 'pkg'), ...]
    """
    found = []
    for path in paths:
        if os.path.isdir(path):
            for folder, dirs, files in os.walk(path):
                dirs.sort()
                found.extend((os.path.join(folder, name), path)
                             for name in sorted(files) if name.endswith(".pyc"))
        else:
            found.append((path, os.path.dirname(path)))
    return found


def output_names(items: Sequence[Tuple[str, str]], out: str) -> Dict[str, str]:
    """Where each .pyc's source goes under ``out``: ``pkg/__pycache__/m.cpython-38.pyc``
    becomes ``out/pkg/m.py``; when two files would land on one name (two
    interpreters' caches of one module), both keep their full stem.

    >>> output_names([("p/__pycache__/m.cpython-38.pyc", "p")], "o")
    {'p/__pycache__/m.cpython-38.pyc': 'o/m.py'}
    """
    wanted = {}
    for path, root in items:
        rel = os.path.relpath(path, root) if root else os.path.basename(path)
        folder, name = os.path.split(rel)
        if os.path.basename(folder) == "__pycache__":
            folder = os.path.dirname(folder)
        match = _TAGGED.match(name)
        short = (match.group("stem") + (match.group("opt") or "")) if match else name[:-len(".pyc")]
        full = name[:-len(".pyc")]
        wanted[path] = (os.path.join(out, folder, short + ".py"), os.path.join(out, folder, full + ".py"))
    counts: Dict[str, int] = {}
    for short, _ in wanted.values():
        counts[short] = counts.get(short, 0) + 1
    return {path: short if counts[short] == 1 else full for path, (short, full) in wanted.items()}


def decompile_file(path: str, out: Optional[str] = None, layout: str = "lines",
                   verify: bool = False, validate: bool = True) -> FileResult:
    """Decompile one .pyc file; write the source to ``out`` (or keep it in
    ``result.source`` when ``out`` is None). Never raises for bad input: the
    reason is in ``result.error``. ``validate``: see :func:`depyf.decompile`
    (the verdicts are counted in ``result.counts``).

    >>> decompile_file("__pycache__/m.cpython-39.pyc").counts        # doctest: +SKIP
    {'identical': 12, 'equivalent': 0, 'fallback': 0, 'unverified': 0}
    """
    from .bytecode import BytecodeError, read_pyc
    from .decompiler.api import DecompilationError, decompile_report
    result = FileResult(path, out)
    try:
        pyc = read_pyc(path)
        result.version = tuple(pyc.version)
        report = decompile_report(pyc.code, layout, validate=validate)
    except (OSError, BytecodeError, DecompilationError) as e:
        # (DecompilationError: the bytecode layer's complaint, a version not
        # decompiled yet say, passed on by decompile_report)
        result.error = str(e)
        return result
    except Exception as e:      # a decompiler bug costs this file only
        result.error = "%s: internal error %s: %s" % (path, type(e).__name__, e)
        return result
    result.code_objects = report.code_objects
    result.fallbacks, result.stubs = report.fallbacks, report.stubs
    if validate:
        result.counts, result.unverified = report.counts(), report.unverified
    if out is None:
        result.source = report.source
    else:
        os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
        with open(out, "w", encoding="utf-8") as f:
            f.write(report.source)
    if verify:
        _verify(result, path, report.source)
    return result


def _verify(result: FileResult, path: str, source: str) -> None:
    from .bytecode.pyc import HEADER_SIZE
    from .verify.roundtrip import TargetError, get_session
    try:
        session = get_session(result.version)
        with open(path, "rb") as f:
            body = f.read()[HEADER_SIZE:]
        module = session.compare_marshalled(body, source, os.path.basename(path))
    except (TargetError, OSError) as e:
        result.verify_error = str(e)
        return
    if module.error is not None:
        result.verify_error = module.error
    else:
        result.verified = (module.deep_equal if module.compiles else 0, module.code_objects)
        result.verify_diffs = [(o.path, o.diff or "differs") for o in module.failures()]
        if not module.compiles:
            result.verify_diffs.insert(0, ("<module>", "output does not recompile: %s"
                                           % module.compile_error))


def _work(item):
    path, out, layout, verify, validate = item
    return decompile_file(path, out, layout, verify, validate)


def decompile_paths(paths: Sequence[str], out: str, jobs: int = 1, layout: str = "lines",
                    verify: bool = False,
                    progress: Optional[Callable[[FileResult], None]] = None,
                    validate: bool = True) -> Summary:
    """Decompile every .pyc under ``paths`` into the folder ``out``, ``jobs``
    files at a time; ``progress`` is called once per finished file."""
    items = find_pyc_files(paths)
    names = output_names(items, out)
    work = [(path, names[path], layout, verify, validate) for path, _ in items]
    summary = Summary()
    if jobs <= 1 or len(work) <= 1:
        finished = map(_work, work)
        for result in finished:
            summary.results.append(result)
            if progress:
                progress(result)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for result in pool.map(_work, work, chunksize=1):
                summary.results.append(result)
                if progress:
                    progress(result)
    return summary
