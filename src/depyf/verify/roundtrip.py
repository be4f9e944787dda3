"""The strict round trip: compile in the target, decompile here, compare there.

For a target version, :class:`TargetSession` keeps one long-running
``compare_code.py`` process under that interpreter and streams requests to it.
:func:`verify` runs one module through the whole trip::

    source --(target compile + marshal)--> CodeRecord --(decompile, host)-->
    candidate source --(target compiles both, compares code objects)--> ModuleResult

The comparison rule is the strict one of docs/design.md, implemented (and documented) in
:mod:`depyf.verify.compare_code`. The host never uses its own ``marshal``: the
module's code comes back as bytes and is read with
:func:`depyf.bytecode.unmarshal` for the target's version.

Example::

    >>> from depyf.verify.roundtrip import IDENTITY, verify
    >>> r = verify("def f(x):\\n    return x + 1\\n", "3.9", decompile=IDENTITY)  # doctest: +SKIP
    >>> r.code_objects, r.deep_equal, r.compiles                                # doctest: +SKIP
    (2, 2, True)
"""
from __future__ import annotations

import atexit
import base64
import collections
import json
import multiprocessing
import os
import subprocess
import tempfile
import threading
import time
import tokenize
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from depyf.verify.interpreters import Version, find_interpreter, format_version, parse_version

#: The script the target interpreter runs.
COMPARE_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare_code.py")


class _Identity:
    """Stand-in decompiler whose output is the original source (a harness self-test)."""

    def __repr__(self) -> str:
        return "IDENTITY"


#: Pass as ``decompile`` to use the original source as the "decompiled" text:
#: a self-test of the harness, which must give 100% deep-equal.
IDENTITY = _Identity()


class _Unparse:
    """Stand-in decompiler: the target's ``ast.unparse`` of the original (3.9+).

    A calibration: an unparse of the true source gives 98.9-99.8% deep-equal on 3.10-3.12.
    """

    def __repr__(self) -> str:
        return "UNPARSE"


UNPARSE = _Unparse()


class TargetError(RuntimeError):
    """The target process failed (died, answered nonsense)."""


class CompileError(ValueError):
    """The target could not compile a source (``lineno`` where known)."""

    def __init__(self, message: str, lineno: Optional[int] = None):
        super().__init__(message)
        self.lineno = lineno


# --------------------------------------------------------------------------
# Results


@dataclass
class ObjectResult:
    """The verdict on one code object of the original (see compare_code);
    ``equivalent``: the same control flow though not equal (equal objects
    count as equivalent whatever it says)."""
    path: str
    equal: bool
    deep: bool
    diff: Optional[str] = None
    kind: Optional[str] = None
    equivalent: bool = False


@dataclass
class ModuleResult:
    """The verdict on one module.

    ``error`` is set when the trip could not be measured at all (the original
    does not compile, the target died); ``crash`` when the decompiler raised;
    ``compiles`` when its output recompiled.

    Example::

        >>> r = ModuleResult("m.py", (3, 9), [ObjectResult("<module>", True, True)], compiles=True)
        >>> r.code_objects, r.equal, r.equivalent, r.deep_equal, r.failure_kinds()
        (1, 1, 1, 1, {})
    """
    filename: str
    version: Version
    objects: List[ObjectResult] = field(default_factory=list)
    compiles: bool = False
    crash: Optional[str] = None
    error: Optional[str] = None
    compile_error: Optional[str] = None
    decompile_seconds: float = 0.0

    @property
    def code_objects(self) -> int:
        return len(self.objects)

    @property
    def equal(self) -> int:
        return sum(1 for o in self.objects if o.equal)

    @property
    def deep_equal(self) -> int:
        return sum(1 for o in self.objects if o.deep)

    @property
    def equivalent(self) -> int:
        """Objects equal or, failing that, of the same control flow."""
        return sum(1 for o in self.objects if o.equal or o.equivalent)

    @property
    def ok(self) -> bool:
        """Every code object deep-equal (and there was something to measure)."""
        return self.error is None and self.compiles and self.deep_equal == self.code_objects

    def failures(self) -> List[ObjectResult]:
        """The objects that are not equal (their own instructions differ)."""
        return [o for o in self.objects if not o.equal]

    def failure_kinds(self) -> Dict[str, List[str]]:
        """Short kind label -> ``"file:path: diff"`` texts.

        A crash or a candidate that does not compile is one entry for the
        whole module (``crash: <exception type>``, ``no compile: <error
        type>``); otherwise each non-equal object is filed under its kind,
        e.g. ``LOAD_FAST/LOAD_GLOBAL`` (first differing opnames) or
        ``arg:LOAD_CONST``.

        Example::

            >>> r = ModuleResult("m.py", (3, 9), [ObjectResult("<module>", False, False,
            ...     "#1: LOAD_CONST int:1 | candidate: LOAD_CONST float:1.0", "arg:LOAD_CONST")], compiles=True)
            >>> r.failure_kinds()
            {'arg:LOAD_CONST': ['m.py:<module>: #1: LOAD_CONST int:1 | candidate: LOAD_CONST float:1.0']}
        """
        if self.error is not None:
            return {"error: " + _error_type(self.error): ["%s: %s" % (self.filename, self.error)]}
        if self.crash is not None:
            return {"crash: " + _error_type(self.crash): ["%s: %s" % (self.filename, self.crash)]}
        if not self.compiles:
            text = self.compile_error or "?"
            return {"no compile: " + _error_type(text): ["%s: %s" % (self.filename, text)]}
        kinds: Dict[str, List[str]] = {}
        for o in self.failures():
            kinds.setdefault(o.kind or "?", []).append("%s:%s: %s" % (self.filename, o.path, o.diff))
        return kinds

    def format(self) -> str:
        """One line: ``m.py 3.9: 12/14 deep-equal, recompiles``."""
        state = ("error: " + self.error if self.error else "crash: " + self.crash if self.crash
                 else "recompiles" if self.compiles else "does not recompile")
        return "%s %s: %d/%d deep-equal, %s" % (self.filename, format_version(self.version),
                                                 self.deep_equal, self.code_objects, state)


def _error_type(text: str) -> str:
    """``"SyntaxError: bad (x.py, line 3)"`` -> ``"SyntaxError"``."""
    head = text.strip().splitlines()[-1] if text.strip() else "?"
    name = head.split(":", 1)[0].strip()
    return name if name and " " not in name else "other"


@dataclass
class CorpusResult:
    """All module results for one version, with totals.

    Example::

        >>> c = CorpusResult((3, 9), [ModuleResult("m.py", (3, 9), [ObjectResult("<module>", True, True)], True)])
        >>> c.modules, c.recompiled, c.code_objects, c.deep_percent
        (1, 1, 1, 100.0)
    """
    version: Version
    results: List[ModuleResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def modules(self) -> int:
        return len(self.results)

    @property
    def recompiled(self) -> int:
        return sum(1 for r in self.results if r.compiles)

    @property
    def code_objects(self) -> int:
        return sum(r.code_objects for r in self.results)

    @property
    def equal(self) -> int:
        return sum(r.equal for r in self.results)

    @property
    def deep_equal(self) -> int:
        return sum(r.deep_equal for r in self.results)

    @property
    def equivalent(self) -> int:
        return sum(r.equivalent for r in self.results)

    @property
    def crashes(self) -> int:
        return sum(1 for r in self.results if r.crash is not None)

    @property
    def errors(self) -> int:
        return sum(1 for r in self.results if r.error is not None)

    @property
    def deep_percent(self) -> float:
        return 100.0 * self.deep_equal / self.code_objects if self.code_objects else 100.0

    @property
    def equal_percent(self) -> float:
        return 100.0 * self.equal / self.code_objects if self.code_objects else 100.0

    @property
    def equivalent_percent(self) -> float:
        """Equal or equivalent objects (:attr:`ModuleResult.equivalent`), in percent."""
        return 100.0 * self.equivalent / self.code_objects if self.code_objects else 100.0

    @property
    def decompile_seconds(self) -> float:
        return sum(r.decompile_seconds for r in self.results)

    def failure_kinds(self) -> List[Tuple[str, int, List[str]]]:
        """``(kind, count, examples)``, most frequent first (ties by name)."""
        merged: Dict[str, List[str]] = collections.defaultdict(list)
        for r in self.results:
            for kind, texts in r.failure_kinds().items():
                merged[kind].extend(texts)
        return sorted(((k, len(v), v) for k, v in merged.items()), key=lambda t: (-t[1], t[0]))


TABLE_COLUMNS = ("version", "modules", "recompiled", "code objects", "equal %", "deep-equal %",
                 "equivalent %", "crashes", "errors")


def format_table(results: Sequence[CorpusResult]) -> str:
    """A plain-text table, one row per version.

    Example::

        >>> print(format_table([CorpusResult((3, 9))]))  # doctest: +NORMALIZE_WHITESPACE
        version  modules  recompiled  code objects  equal %  deep-equal %  equivalent %  crashes  errors
        3.9      0        0           0             100.00   100.00        100.00        0        0
    """
    rows = [TABLE_COLUMNS]
    for c in results:
        rows.append((format_version(c.version), str(c.modules), str(c.recompiled),
                     str(c.code_objects), "%.2f" % c.equal_percent, "%.2f" % c.deep_percent,
                     "%.2f" % c.equivalent_percent, str(c.crashes), str(c.errors)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(TABLE_COLUMNS))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
                     for row in rows)


# --------------------------------------------------------------------------
# The target process


class TargetSession:
    """One long-running ``compare_code.py`` process under a target interpreter.

    Requests are answered in order; a lock makes a session safe to share
    between threads. If the process dies, the request in flight raises
    :class:`TargetError` and the next request starts a fresh process.

    Example::

        >>> with TargetSession("3.8") as s:                       # doctest: +SKIP
        ...     rec = s.compile_module("x = 1\\n")
        ...     s.compare("x = 1\\n", "x = 1.0\\n").deep_equal
        0
    """

    def __init__(self, version, interpreter: Optional[str] = None):
        self.version: Version = parse_version(version)
        self.interpreter = interpreter or find_interpreter(self.version)
        if self.interpreter is None:
            raise TargetError("no interpreter for Python %s" % format_version(self.version))
        self._proc: Optional[subprocess.Popen] = None
        self._stderr = None
        self._lock = threading.Lock()
        self._next_id = 0
        self._pid = os.getpid()

    # -- process ----------------------------------------------------------

    def _start(self) -> None:
        self._pid = os.getpid()
        self._stderr = tempfile.TemporaryFile()
        # -I: nothing from the environment or the current folder leaks into
        # the target; -B: leave its __pycache__ folders alone.
        self._proc = subprocess.Popen([self.interpreter, "-I", "-B", COMPARE_SCRIPT],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._stderr)

    def close(self) -> None:
        """Stop the target process (a later request starts a new one)."""
        proc, self._proc = self._proc, None
        if self._pid != os.getpid():
            self._stderr = None
            return  # a forked copy: the process is the parent's to stop
        if proc is not None:
            try:
                proc.stdin.close()
                proc.wait(timeout=10)
            except (OSError, subprocess.SubprocessError):
                proc.kill()
                proc.wait()
            proc.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def __enter__(self) -> "TargetSession":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _stderr_tail(self, size: int = 600) -> str:
        if self._stderr is None:
            return ""
        self._stderr.flush()
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace").strip()[-size:]

    def request(self, payload: dict) -> dict:
        """Send one request dict, return the response dict.

        Example::

            >>> TargetSession("3.11").request({"op": "check", "original": "x ="})  # doctest: +SKIP
            {'ok': False, 'error': 'SyntaxError: invalid syntax (<original>, line 1)', 'lineno': 1, 'id': 1}
        """
        with self._lock:
            if self._pid != os.getpid():
                # A forked copy: the pipes belong to the parent's process,
                # which must not see two clients. Start our own.
                self._proc = self._stderr = None
            if self._proc is None or self._proc.poll() is not None:
                self.close()
                self._start()
            self._next_id += 1
            payload = dict(payload, id=self._next_id)
            line = json.dumps(payload, ensure_ascii=True).encode("ascii") + b"\n"
            try:
                self._proc.stdin.write(line)
                self._proc.stdin.flush()
                answer = self._proc.stdout.readline()
            except (BrokenPipeError, OSError):
                answer = b""
            if not answer:
                self._proc.wait()
                reason = "target %s ended (rc %s): %s" % (
                    format_version(self.version), self._proc.returncode,
                    self._stderr_tail() or "no stderr")
                self.close()
                raise TargetError(reason)
            response = json.loads(answer)
            if response.get("id") != self._next_id:
                self.close()
                raise TargetError("target answered request %r, expected %r"
                                  % (response.get("id"), self._next_id))
            return response

    # -- operations -------------------------------------------------------

    def compile_module(self, source: str, filename: str = "<original>"):
        """Compile in the target; the module's CodeRecord (read with depyf's unmarshal).

        Raises :class:`CompileError` if the target cannot compile it.

        Example::

            >>> TargetSession("3.8").compile_module("x = 1\\n").version   # doctest: +SKIP
            (3, 8)
        """
        from depyf.bytecode import unmarshal
        response = self.request({"op": "compile", "original": source, "filename": filename})
        if not response.get("ok"):
            raise CompileError(response.get("error") or "?", response.get("lineno"))
        data = base64.b64decode(response["marshal"])
        return unmarshal(data, self.version, path=filename)

    def check(self, source: str, filename: str = "<original>") -> Optional[str]:
        """None if the target compiles ``source``, else the error text."""
        response = self.request({"op": "check", "original": source, "filename": filename})
        return None if response.get("ok") else response.get("error") or "?"

    def unparse(self, source: str) -> str:
        """The target's ``ast.unparse(ast.parse(source))`` (3.9+)."""
        response = self.request({"op": "unparse", "original": source})
        if not response.get("ok"):
            raise CompileError(response.get("error") or "?")
        return response["source"]

    def compare(self, original: str, candidate: Optional[str], filename: str = "<original>",
                reason: Optional[str] = None) -> ModuleResult:
        """Compare every code object of ``original`` with ``candidate`` (None: no candidate).

        Example::

            >>> TargetSession("3.12").compare("x = 1\\n", "x = 2\\n").objects[0].diff  # doctest: +SKIP
            '#1: LOAD_CONST int:1 | candidate: LOAD_CONST int:2'
        """
        response = self.request({"op": "compare", "original": original, "candidate": candidate,
                                 "filename": filename, "reason": reason})
        return self._module_result(response, filename, candidate)

    def compare_marshalled(self, data: bytes, candidate: str,
                           filename: str = "<original>") -> ModuleResult:
        """Compare every code object of a marshalled module (a .pyc body written
        by this target version) with ``candidate`` source.

        Example::

            >>> pyc = read_pyc("m.cpython-38.pyc")                        # doctest: +SKIP
            >>> TargetSession("3.8").compare_marshalled(pyc_body, text).deep_equal  # doctest: +SKIP
            12
        """
        response = self.request({"op": "compare_marshal", "candidate": candidate,
                                 "marshal": base64.b64encode(bytes(data)).decode("ascii"),
                                 "filename": filename})
        return self._module_result(response, filename, candidate)

    def _module_result(self, response: dict, filename: str, candidate) -> ModuleResult:
        result = ModuleResult(filename, self.version)
        if not response.get("ok"):
            result.error = response.get("error") or "?"
            return result
        result.compiles = bool(response.get("compiles"))
        if candidate is not None and not result.compiles:
            result.compile_error = response.get("error")
        result.objects = [ObjectResult(o["path"], o["equal"], o["deep"], o.get("diff"), o.get("kind"),
                                       bool(o.get("equivalent")))
                          for o in response.get("objects", ())]
        return result


_SESSIONS: Dict[Version, TargetSession] = {}


def get_session(version) -> TargetSession:
    """The shared session of this process for ``version`` (started on first use)."""
    version = parse_version(version)
    session = _SESSIONS.get(version)
    if session is None:
        session = _SESSIONS[version] = TargetSession(version)
    return session


def close_sessions() -> None:
    """Stop every shared session."""
    while _SESSIONS:
        _SESSIONS.popitem()[1].close()


atexit.register(close_sessions)


# --------------------------------------------------------------------------
# One module


def _default_decompile() -> Callable:
    import depyf  # lazily: depyf imports this package's comparison

    def decompile(record):
        # The trip measures the decompiler itself, not what validation makes of it.
        return depyf.decompile(record, validate=False)
    return decompile


def _crash_text(exc: BaseException) -> str:
    text = "%s: %s" % (type(exc).__name__, exc)
    return text if len(text) <= 500 else text[:497] + "..."


def verify(source: str, version, decompile: Optional[Callable] = None,
           filename: str = "<source>", session: Optional[TargetSession] = None) -> ModuleResult:
    """The strict round trip of one module source under one target version.

    ``decompile`` takes a CodeRecord and returns source text (default
    ``depyf.decompile``); :data:`IDENTITY` and :data:`UNPARSE` are
    self-tests. An exception from ``decompile`` is recorded in ``crash``,
    never raised. Only harness failures (no interpreter) raise.

    Example::

        >>> r = verify("f = lambda: 1\\n", "3.10", decompile=IDENTITY)   # doctest: +SKIP
        >>> [(o.path, o.deep) for o in r.objects]                       # doctest: +SKIP
        [('<module>', True), ('<module>/<lambda>#0', True)]
    """
    session = session or get_session(version)
    result = ModuleResult(filename, session.version)
    try:
        record = session.compile_module(source, filename)
    except (CompileError, TargetError) as exc:
        result.error = "original: %s" % exc
        return result
    except Exception as exc:  # our unmarshal failed: a finding, not a crash of the run
        result.error = "unmarshal: " + _crash_text(exc)
        return result
    candidate, crash, seconds = _run_decompile(decompile, record, source, session)
    try:
        result = session.compare(source, candidate, filename, reason=crash)
    except TargetError as exc:
        result.error = "compare: %s" % exc
    result.crash = crash
    result.decompile_seconds = seconds
    return result


def _run_decompile(decompile, record, source, session) -> Tuple[Optional[str], Optional[str], float]:
    """(candidate source or None, crash text or None, seconds)."""
    start = time.perf_counter()
    try:
        if decompile is IDENTITY:
            candidate = source
        elif decompile is UNPARSE:
            candidate = session.unparse(source)
        else:
            candidate = (decompile or _default_decompile())(record)
        if not isinstance(candidate, str):
            raise TypeError("decompile returned %s, not str" % type(candidate).__name__)
        crash = None
    except Exception as exc:  # any decompiler failure is a measured result
        candidate, crash = None, _crash_text(exc)
    return candidate, crash, time.perf_counter() - start


# --------------------------------------------------------------------------
# A corpus


def read_source(path: str) -> str:
    """A Python file's text, decoded as its coding cookie says."""
    with tokenize.open(path) as f:
        return f.read()


def verify_file(path: str, version, decompile: Optional[Callable] = None,
                session: Optional[TargetSession] = None) -> ModuleResult:
    """:func:`verify` on a file (an unreadable file is an ``error`` result).

    Example::

        >>> verify_file("tests/cases/loops.py", "3.13", IDENTITY).ok   # doctest: +SKIP
        True
    """
    try:
        source = read_source(path)
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        return ModuleResult(path, parse_version(version), error="read: " + _crash_text(exc))
    return verify(source, version, decompile, filename=path, session=session)


_WORKER: dict = {}


def _worker_init(version, decompile) -> None:
    # Under fork the arguments are inherited, not pickled, so any callable works.
    # The parent's sessions came along too; forget them (TargetSession would
    # also notice the new pid) so this worker starts its own target.
    _SESSIONS.clear()
    _WORKER["version"] = version
    _WORKER["decompile"] = decompile


def _worker_verify(item: Tuple[int, str]) -> Tuple[int, ModuleResult]:
    index, path = item
    return index, verify_file(path, _WORKER["version"], _WORKER["decompile"])


def run_corpus(version, paths: Sequence[str], decompile: Optional[Callable] = None,
               jobs: int = 1) -> CorpusResult:
    """Round-trip every file in ``paths`` under ``version``; results in input order.

    With ``jobs > 1`` the files are shared among forked worker processes,
    each with its own target session (biggest files first, to balance).

    Example::

        >>> from depyf.verify.corpus import stdlib_modules
        >>> c = run_corpus("3.12", stdlib_modules("3.12")[:5], IDENTITY, jobs=2)  # doctest: +SKIP
        >>> c.deep_percent                                                        # doctest: +SKIP
        100.0
    """
    version = parse_version(version)
    paths = list(paths)
    start = time.perf_counter()
    if jobs <= 1 or len(paths) <= 1:
        results = [verify_file(p, version, decompile) for p in paths]
    else:
        results = _run_parallel(version, paths, decompile, jobs)
    return CorpusResult(version, results, time.perf_counter() - start)


def _run_parallel(version, paths, decompile, jobs) -> List[ModuleResult]:
    order = sorted(range(len(paths)), key=lambda i: -_size(paths[i]))
    results: List[Optional[ModuleResult]] = [None] * len(paths)
    context = multiprocessing.get_context("fork")
    with context.Pool(min(jobs, len(paths)), _worker_init, (version, decompile)) as pool:
        for index, result in pool.imap_unordered(_worker_verify, [(i, paths[i]) for i in order]):
            results[index] = result
    return results  # type: ignore[return-value]


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
