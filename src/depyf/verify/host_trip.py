"""The round trip of one source on the host interpreter itself, in process.

The generated corpus (``tests/test_generated.py``, ``tools/fuzz_roundtrip.py``)
and its regression cases need thousands of trips on whatever interpreter runs
the tests, so they skip the target subprocess of :mod:`depyf.verify.roundtrip`:
compile here, decompile here, recompile here, and compare with the very
functions the target process uses (:mod:`depyf.verify.compare_code`), so the
verdict is the same strict rule.

Example::

    >>> trip = host_trip("def f(x):\\n    return x + 1\\n")
    >>> trip.ok, trip.code_objects, trip.kind
    (True, 2, None)
"""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from typing import List, Optional

from depyf.verify import compare_code

#: What compiling an arbitrary source may raise besides SyntaxError (a
#: NUL byte, a huge literal, a nesting deeper than the parser allows).
COMPILE_ERRORS = (SyntaxError, ValueError, TypeError, OverflowError, RecursionError, MemoryError)

#: The note depyf's unstructured fallback writes into a body it could not
#: structure; its reason names the cause better than the first differing
#: instruction (the fallback's own prelude) does.
_FALLBACK_NOTE = re.compile(r"depyf: unstructured fallback \((.*?)\)['\"]")


def accepted(obj: dict) -> bool:
    """Whether one code object's verdict passes: for now the strict rule's
    ``deep`` (it and every nested object equal).

    The one place to widen the rule: once compare_code gives an
    "equivalent" verdict (same basic blocks up to order and polarity), it
    is accepted here too, and every user of this module follows.

    Example::

        >>> accepted({"path": "<module>", "equal": True, "deep": True})
        True
        >>> accepted({"path": "<module>", "equal": True, "deep": False})
        False
    """
    return bool(obj.get("deep"))


@dataclass
class HostTrip:
    """One source's trip: the candidate text and a verdict per code object.

    ``crash`` is set when depyf raised, ``compile_error`` when its output
    does not compile; otherwise ``objects`` holds compare_code's verdicts
    (one dict per code object of the original, depth first).
    """
    source: str
    candidate: Optional[str] = None
    crash: Optional[str] = None
    compile_error: Optional[str] = None
    objects: List[dict] = field(default_factory=list)

    @property
    def code_objects(self) -> int:
        return len(self.objects)

    @property
    def ok(self) -> bool:
        """No crash, the candidate compiles and every object is accepted."""
        return (self.crash is None and self.compile_error is None
                and all(accepted(o) for o in self.objects))

    @property
    def kind(self) -> Optional[str]:
        """A short label of what went wrong (None when ok): ``crash:
        <exception type>``, ``no compile: <error type>``, or the strict
        rule's kind of the first object that is not equal, e.g.
        ``LOAD_FAST/LOAD_GLOBAL`` or ``missing:RETURN_VALUE``; but
        ``fallback: <reason>`` (numbers as N) when depyf wrote a body as
        its unstructured fallback.

        Example::

            >>> HostTrip("x = 1", crash="IndexError: list index out of range").kind
            'crash: IndexError'
            >>> HostTrip("x = 1", "'depyf: unstructured fallback (jump at 12)'\\n",
            ...          objects=[{"path": "<module>", "equal": False, "deep": False}]).kind
            'fallback: jump at N'
        """
        if self.crash is not None:
            return "crash: " + _type_of(self.crash)
        if self.compile_error is not None:
            return "no compile: " + _type_of(self.compile_error)
        if not self.ok:
            note = _FALLBACK_NOTE.search(self.candidate or "")
            if note is not None:
                return "fallback: " + re.sub(r"\d+", "N", note.group(1))
        for o in self.objects:
            if not o.get("equal"):
                return o.get("kind") or "?"
        for o in self.objects:
            if not accepted(o):
                return "deep"  # unreachable under the strict rule; kept for a wider one
        return None

    def report(self) -> str:
        """The source, what depyf wrote and the first difference: a test's message.

        Example::

            >>> print(HostTrip("x = 1\\n", crash="KeyError: 3").report())
            crash: KeyError
            --- source
            x = 1
            <BLANKLINE>
            --- KeyError: 3
        """
        lines = [self.kind or "ok", "--- source", self.source.rstrip("\n"), ""]
        if self.crash is not None:
            lines.append("--- " + self.crash)
            return "\n".join(lines)
        lines += ["--- depyf", (self.candidate or "").rstrip("\n"), ""]
        if self.compile_error is not None:
            lines.append("--- " + self.compile_error)
        for o in self.objects:
            if not o.get("equal"):
                lines.append("--- %s: %s" % (o["path"], o.get("diff")))
                break
        return "\n".join(lines)


def _type_of(text: str) -> str:
    """``"IndexError: list index out of range"`` -> ``"IndexError"``."""
    name = text.split(":", 1)[0].strip()
    return name if name and " " not in name else "other"


def _error_text(exc: BaseException) -> str:
    text = "%s: %s" % (type(exc).__name__, exc)
    return text if len(text) <= 500 else text[:497] + "..."


def host_compile(source: str, filename: str = "<generated>"):
    """The module code of ``source`` on this interpreter, or None if it
    cannot compile it (generated programs the host rejects are filtered).

    Example::

        >>> host_compile("x = 1").co_name, host_compile("return 1")
        ('<module>', None)
    """
    with warnings.catch_warnings():
        # Generated sources warn a lot (`is` with a literal, bad escapes).
        warnings.simplefilter("ignore")
        try:
            return compile(source, filename, "exec", dont_inherit=True)
        except COMPILE_ERRORS:
            return None


def host_trip(source: str, filename: str = "<generated>", decompile=None) -> HostTrip:
    """Compile ``source`` here, decompile the module code (``depyf.decompile``
    unless ``decompile`` is given), recompile, compare every code object.

    Raises ValueError if the host cannot compile ``source`` itself: that is
    the caller's filter, never a finding.

    Example::

        >>> host_trip("x = [i for i in y]\\n").ok
        True
        >>> host_trip("x = (", "<bad>")
        Traceback (most recent call last):
        ...
        ValueError: the host cannot compile <bad>
    """
    code = host_compile(source, filename)
    if code is None:
        raise ValueError("the host cannot compile %s" % filename)
    if decompile is None:
        import functools

        import depyf
        # The structurer's own output, not validation's repair of it: a program
        # validation sent to the fallback is a finding of its kind, labelled by
        # what the structured text got wrong.
        decompile = functools.partial(depyf.decompile, validate=False)
    trip = HostTrip(source)
    try:
        trip.candidate = decompile(code)
    except Exception as exc:  # any decompiler failure is a finding, not an error of the test
        trip.crash = _error_text(exc)
    if trip.crash is not None:
        return trip
    order, orig = compare_code.collect(code)
    cand = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            cand = compare_code.collect(compile(trip.candidate, filename + " (candidate)",
                                                "exec", dont_inherit=True))[1]
        except COMPILE_ERRORS as exc:
            trip.compile_error = _error_text(exc)
    trip.objects = compare_code.compare_tables(order, orig, cand)
    return trip
