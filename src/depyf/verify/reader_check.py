"""Check depyf's .pyc reader against each interpreter's own ``dis``.

For a target version, :func:`check_files` runs ``dis_reference.py`` under that
interpreter (paths streamed in, one JSON line per file streamed out), reads
the same files on the host with depyf's :func:`read_pyc` + :func:`decode`,
puts both in the canon form of :mod:`depyf.verify.dis_reference` and compares
them. Each file ends up identical, mismatched (with the first difference:
code object, instruction index, field, ours vs theirs), our error, or their
error (the target itself cannot load it).

Example::

    >>> from depyf.verify.reader_check import check_files, stdlib_pyc_files
    >>> files = stdlib_pyc_files("3.9")[:50]           # doctest: +SKIP
    >>> print(check_files("3.9", files, jobs=2).format())  # doctest: +SKIP
    3.9: 50 files, 50 identical (100.00%), 0 mismatches, 0 our errors, 0 their errors
"""
from __future__ import annotations

import json
import math
import multiprocessing
import os
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

from depyf.verify.dis_reference import canon
from depyf.verify.interpreters import (Version, find_interpreter, format_version,
                                       missing_reason, parse_version)

#: The script the target interpreter runs; it is this package's own file.
REFERENCE_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dis_reference.py")

IDENTICAL = "identical"
MISMATCH = "mismatch"
OUR_ERROR = "our_error"
THEIR_ERROR = "their_error"
STATUSES = (IDENTICAL, MISMATCH, OUR_ERROR, THEIR_ERROR)

#: Column names of a canon instruction row / exception row.
INSTRUCTION_FIELDS = ("opname", "arg", "argval", "jump_target", "line", "positions", "offset")
EXCEPTION_FIELDS = ("start", "end", "target", "depth", "lasti")

#: Longest repr of a value shown in a difference.
_SHOW = 160


# --------------------------------------------------------------------------
# Our side: depyf's records in canon form


def record_tree(rec, decode: Callable) -> dict:
    """Canon tree of a depyf CodeRecord, decoded with ``decode``.

    The same shape as :func:`depyf.verify.dis_reference.code_tree` builds from
    a live code object, so the two compare directly.

    Example::

        >>> from depyf.bytecode import decode, from_live
        >>> tree = record_tree(from_live(compile("x = 1", "<s>", "exec")), decode)
        >>> sorted(tree)
        ['exceptions', 'instructions', 'name', 'qualname']
    """
    hook = _record_hook(decode)
    bc = decode(rec)
    return {
        "name": rec.name,
        # Before 3.11 there is no co_qualname; the reference uses co_name.
        "qualname": rec.qualname if tuple(rec.version) >= (3, 11) else rec.name,
        "instructions": [instruction_row(ins, hook) for ins in bc.instructions],
        "exceptions": [exception_row(e) for e in bc.exception_entries],
    }


def _record_hook(decode: Callable) -> Callable:
    """A canon code hook turning nested CodeRecords into their trees."""
    from depyf.bytecode.code import CodeRecord

    def hook(value):
        if isinstance(value, CodeRecord):
            return record_tree(value, decode)
        return None
    return hook


def instruction_row(ins, hook: Callable) -> list:
    """One depyf Instruction as a canon row (see INSTRUCTION_FIELDS)."""
    target = ins.target
    positions = ins.positions
    return [
        ins.opname,
        ins.arg,
        canon(ins.argval, hook),
        target.offset if target is not None else None,
        ins.line,
        list(positions) if positions is not None else None,
        ins.offset,
    ]


def exception_row(entry) -> list:
    """One exception-table entry as a canon row (see EXCEPTION_FIELDS)."""
    # dis gives lasti as a bool; compare truth values.
    return [entry.start, entry.end, entry.target, entry.depth, bool(entry.lasti)]


def our_tree(path: str) -> Tuple[Tuple[int, int], dict]:
    """(version our reader reports, canon tree) for a .pyc file."""
    from depyf.bytecode import decode, read_pyc
    pyc = read_pyc(path)
    return tuple(pyc.version), record_tree(pyc.code, decode)


# --------------------------------------------------------------------------
# Comparison


@dataclass
class Difference:
    """The first place two canon trees differ.

    ``where`` is the chain of code object qualnames from the module down;
    ``index`` the instruction (or exception-table row) index, None for a
    code-level field.
    """
    where: Tuple[str, ...]
    field: str
    ours: Any
    theirs: Any
    index: Optional[int] = None
    offset: Optional[int] = None
    opname: Optional[str] = None

    def format(self) -> str:
        """One line, e.g. ``<module> > f: instruction 3 (offset 6 LOAD_CONST) argval: ours=1 theirs=2``."""
        place = " > ".join(self.where) or "?"
        if self.index is not None:
            kind = "exception entry" if self.field.startswith("exception.") else "instruction"
            place += ": %s %d" % (kind, self.index)
            if self.offset is not None:
                place += " (offset %s %s)" % (self.offset, self.opname or "")
        return "%s %s: ours=%s theirs=%s" % (place, self.field, _short(self.ours), _short(self.theirs))


def _short(value) -> str:
    text = json.dumps(value, ensure_ascii=True, default=repr)
    return text if len(text) <= _SHOW else text[:_SHOW - 3] + "..."


def same(a, b) -> bool:
    """Type-exact structural equality (True is not 1, 1.0 is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def trees_equal(ours: dict, theirs: dict) -> bool:
    """Fast exact comparison of two canon trees (via their JSON text)."""
    try:
        return _dump(ours) == _dump(theirs)
    except (TypeError, ValueError):
        # Our tree holds something JSON cannot take: compare it the slow way.
        return same(ours, theirs)


def _dump(tree) -> str:
    return json.dumps(tree, ensure_ascii=True, sort_keys=True, separators=(",", ":"))


def find_difference(ours: dict, theirs: dict, where: Tuple[str, ...] = ()) -> Optional[Difference]:
    """The first Difference between two canon code trees, or None.

    Nested code (a code constant's argval) is descended into, so the
    difference names the innermost code object.

    Example::

        >>> a = {"name": "f", "qualname": "f", "instructions": [["NOP", None, {"const": "None"}, None, 1, None, 0]], "exceptions": []}
        >>> b = {**a, "instructions": [["NOP", None, {"const": "None"}, None, 2, None, 0]]}
        >>> find_difference(a, b).format()
        'f: instruction 0 (offset 0 NOP) line: ours=1 theirs=2'
    """
    where = where + (str(theirs.get("qualname") or theirs.get("name")),)
    for key in ("name", "qualname"):
        if not same(ours.get(key), theirs.get(key)):
            return Difference(where, key, ours.get(key), theirs.get(key))
    diff = _rows_difference(ours.get("instructions"), theirs.get("instructions"), where,
                            INSTRUCTION_FIELDS, "")
    if diff is None:
        diff = _rows_difference(ours.get("exceptions"), theirs.get("exceptions"), where,
                                EXCEPTION_FIELDS, "exception.")
    if diff is None and not same(ours, theirs):
        diff = Difference(where, "tree", ours, theirs)
    return diff


def _rows_difference(ours, theirs, where, fields, prefix) -> Optional[Difference]:
    if not isinstance(ours, list):
        return Difference(where, prefix + "rows", ours, "list of %d" % len(theirs))
    is_instruction = not prefix
    for index, (orow, trow) in enumerate(zip(ours, theirs)):
        if same(orow, trow):
            continue
        offset, opname = (trow[6], trow[0]) if is_instruction else (None, None)
        if not isinstance(orow, list) or len(orow) != len(trow):
            return Difference(where, prefix + "row", orow, trow, index, offset, opname)
        for name, ov, tv in zip(fields, orow, trow):
            if same(ov, tv):
                continue
            if name == "argval" and _is_code(ov) and _is_code(tv):
                nested = find_difference(ov["code"], tv["code"], where)
                if nested is not None:
                    return nested
            return Difference(where, prefix + name, ov, tv, index, offset, opname)
    if len(ours) != len(theirs):
        index = min(len(ours), len(theirs))
        extra = (ours if len(ours) > len(theirs) else theirs)[index]
        offset, opname = (extra[6], extra[0]) if is_instruction and isinstance(extra, list) else (None, None)
        return Difference(where, prefix + "count", len(ours), len(theirs), index, offset, opname)
    return None


def _is_code(value) -> bool:
    return isinstance(value, dict) and set(value) == {"code"}


# --------------------------------------------------------------------------
# Results


@dataclass
class FileResult:
    """The verdict on one file."""
    path: str
    status: str
    difference: Optional[Difference] = None
    error: Optional[str] = None

    def format(self) -> str:
        """One line for a listing."""
        if self.status == MISMATCH and self.difference is not None:
            return "%s: %s" % (self.path, self.difference.format())
        if self.error:
            return "%s: %s" % (self.path, self.error)
        return "%s: %s" % (self.path, self.status)


@dataclass
class Report:
    """All verdicts for one target version.

    Example::

        >>> r = Report((3, 9), [FileResult("a.pyc", IDENTICAL)])
        >>> r.ok, r.count(IDENTICAL), r.format()
        (True, 1, '3.9: 1 files, 1 identical (100.00%), 0 mismatches, 0 our errors, 0 their errors')
    """
    version: Version
    results: List[FileResult] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def files(self) -> int:
        return len(self.results)

    @property
    def percent_identical(self) -> float:
        return 100.0 * self.count(IDENTICAL) / self.files if self.results else 100.0

    @property
    def ok(self) -> bool:
        """True when every file was identical."""
        return all(r.status == IDENTICAL for r in self.results)

    def failures(self, status: Optional[str] = None) -> List[FileResult]:
        """The non-identical results (of one status if given)."""
        return [r for r in self.results
                if r.status != IDENTICAL and (status is None or r.status == status)]

    def format(self, limit: int = 0) -> str:
        """A one-line summary, plus up to ``limit`` failures of each kind."""
        lines = ["%s: %d files, %d identical (%.2f%%), %d mismatches, %d our errors, %d their errors" % (
            format_version(self.version), self.files, self.count(IDENTICAL), self.percent_identical,
            self.count(MISMATCH), self.count(OUR_ERROR), self.count(THEIR_ERROR))]
        for status in (MISMATCH, OUR_ERROR, THEIR_ERROR):
            bad = self.failures(status)
            for result in bad[:limit]:
                lines.append("  %s %s" % (status, result.format()))
            if limit and len(bad) > limit:
                lines.append("  ... and %d more %s" % (len(bad) - limit, status))
        return "\n".join(lines)


# --------------------------------------------------------------------------
# Running the reference


def reference_records(interpreter: str, paths: Sequence[str]) -> Iterator[dict]:
    """Stream ``dis_reference.py`` records for ``paths``, in order.

    One target process serves all the paths: a thread feeds it paths while
    the caller consumes results, so only one file's record is held at a time.
    If the process dies, the remaining paths get an ``ok: false`` record.
    """
    # -I: no environment, user site or script folder can leak into the
    # target; -B: leave the target's __pycache__ folders alone.
    with tempfile.TemporaryFile() as stderr:
        proc = subprocess.Popen([interpreter, "-I", "-B", REFERENCE_SCRIPT],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        feeder = threading.Thread(target=_feed, args=(proc.stdin, paths), daemon=True)
        feeder.start()
        try:
            yield from _read_records(proc, paths, stderr)
        finally:
            feeder.join(timeout=5)
            if proc.poll() is None:
                proc.kill()
            proc.stdout.close()
            proc.wait()


def _feed(pipe, paths: Sequence[str]) -> None:
    try:
        for path in paths:
            pipe.write(os.fsencode(path) + b"\n")
        pipe.close()
    except (BrokenPipeError, OSError, ValueError):
        pass  # the target died or the reader stopped; _read_records reports it


def _read_records(proc, paths: Sequence[str], stderr) -> Iterator[dict]:
    for index, path in enumerate(paths):
        line = proc.stdout.readline()
        if not line:
            proc.wait()
            reason = "reference process ended (rc %s): %s" % (proc.returncode, _tail(stderr))
            for rest in paths[index:]:
                yield {"path": rest, "ok": False, "error": reason}
            return
        record = json.loads(line)
        if record.get("path") != path:
            record = {"path": path, "ok": False,
                      "error": "reference answered for %r" % record.get("path")}
        yield record


def _tail(stderr, size: int = 600) -> str:
    stderr.flush()
    stderr.seek(0)
    text = stderr.read().decode("utf-8", "replace").strip()
    return text[-size:] or "no stderr"


# --------------------------------------------------------------------------
# Checking


def judge(version: Version, record: dict) -> FileResult:
    """Compare our reading of ``record["path"]`` with the reference record."""
    path = record["path"]
    try:
        our_version, ours = our_tree(path)
    except Exception as exc:  # any failure of ours is a finding, not a crash
        if not record.get("ok"):
            return FileResult(path, THEIR_ERROR, error="%s (we also failed: %s: %s)" % (
                record.get("error"), type(exc).__name__, exc))
        return FileResult(path, OUR_ERROR, error="%s: %s" % (type(exc).__name__, exc))
    if not record.get("ok"):
        return FileResult(path, THEIR_ERROR, error="%s (we read it)" % record.get("error"))
    theirs = record["code"]
    if our_version != tuple(version):
        return FileResult(path, MISMATCH, Difference(("file",), "version", list(our_version), list(version)))
    if trees_equal(ours, theirs):
        return FileResult(path, IDENTICAL)
    diff = find_difference(ours, theirs) or Difference(("file",), "tree", "?", "?")
    return FileResult(path, MISMATCH, diff)


def check_chunk(version, paths: Sequence[str], interpreter: Optional[str] = None) -> List[FileResult]:
    """Check ``paths`` against one target process; results in input order."""
    version = parse_version(version)
    interpreter = interpreter or _interpreter(version)
    return [judge(version, record) for record in reference_records(interpreter, list(paths))]


def _check_chunk_star(args) -> List[FileResult]:
    return check_chunk(*args)


def check_files(version, paths: Iterable[str], jobs: int = 1,
                interpreter: Optional[str] = None, chunk_size: Optional[int] = None) -> Report:
    """Check every .pyc in ``paths`` (all of one target version).

    With ``jobs > 1`` the files are split into chunks checked by a process
    pool, each chunk with its own target process.

    Example::

        >>> report = check_files("3.12", stdlib_pyc_files("3.12")[:20])  # doctest: +SKIP
        >>> report.ok                                                    # doctest: +SKIP
        True
    """
    version = parse_version(version)
    interpreter = interpreter or _interpreter(version)
    paths = [os.fspath(p) for p in paths]
    jobs = max(1, int(jobs))
    if jobs == 1 or len(paths) < 2:
        return Report(version, check_chunk(version, paths, interpreter))
    chunks = _chunks(paths, chunk_size or _default_chunk_size(len(paths), jobs))
    results: List[FileResult] = []
    with multiprocessing.Pool(min(jobs, len(chunks))) as pool:
        for part in pool.imap_unordered(_check_chunk_star,
                                        [(version, chunk, interpreter) for chunk in chunks]):
            results.extend(part)
    results.sort(key=lambda r: r.path)
    return Report(version, results)


def _default_chunk_size(n: int, jobs: int) -> int:
    # Several chunks per worker so one slow chunk (typing, pydoc topics...)
    # does not leave the other workers idle; not so small that starting a
    # target interpreter per chunk dominates.
    return max(10, min(200, math.ceil(n / (jobs * 4))))


def _chunks(items: Sequence[str], size: int) -> List[List[str]]:
    return [list(items[i:i + size]) for i in range(0, len(items), size)]


def _interpreter(version: Version) -> str:
    exe = find_interpreter(version)
    if exe is None:
        raise LookupError(missing_reason(version))
    return exe


# --------------------------------------------------------------------------
# Files


def stdlib_dir(version) -> Optional[str]:
    """The ``lib/python3.X`` folder of the interpreter for ``version``."""
    version = parse_version(version)
    exe = find_interpreter(version)
    if exe is None:
        return None
    prefix = os.path.dirname(os.path.dirname(os.path.realpath(exe)))
    guess = os.path.join(prefix, "lib", "python%d.%d" % version)
    if os.path.isdir(guess):
        return guess
    # An unusual layout: ask the interpreter itself.
    out = subprocess.run([exe, "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"],
                         capture_output=True, text=True, timeout=60)
    path = out.stdout.strip()
    return path if out.returncode == 0 and os.path.isdir(path) else None


def pyc_files_under(root: str) -> List[str]:
    """Every .pyc inside a ``__pycache__`` folder under ``root``, sorted,
    leaving out site-packages (third-party code, not the interpreter's own)."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ("site-packages", "dist-packages")]
        if os.path.basename(folder) != "__pycache__":
            continue
        found.extend(os.path.join(folder, name) for name in files if name.endswith(".pyc"))
    return sorted(found)


def stdlib_pyc_files(version) -> List[str]:
    """Every standard-library .pyc of that interpreter (all optimisation levels).

    Example::

        >>> stdlib_pyc_files("3.11")[:1]                # doctest: +SKIP
        ['/.../lib/python3.11/__pycache__/__future__.cpython-311.opt-1.pyc']
    """
    root = stdlib_dir(version)
    return pyc_files_under(root) if root else []
