"""The behaviour check: a decompiled module must do what the original does.

For a target version: compile the case source there, decompile the module's
code here (``depyf.decompile`` of the :class:`~depyf.bytecode.CodeRecord`), send
the candidate back and run both there, side by side, on the checks the case
lists (:mod:`depyf.verify.behave_code` says what a case looks like and what is
compared). The host's own version runs in this process, from its own
``compile``. Where the strict round trip says "not the same bytecode", this
says whether the difference shows: a decompilation may differ in form and still
be right, but never give other results, raise other exceptions or leave other
side effects.

Example::

    >>> r = check_behaviour("def f(x):\\n    return not x\\nCHECKS = [('f', (0,))]\\n", "3.12")  # doctest: +SKIP
    >>> r.checks, r.differences                                # doctest: +SKIP
    (2, [])
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Callable, List, Optional

from depyf.verify import behave_code
from depyf.verify.interpreters import Version, format_version, parse_version
from depyf.verify.roundtrip import CompileError, TargetError, get_session

HOST: Version = sys.version_info[:2]


@dataclass
class BehaviourResult:
    """The verdict on one case module under one version.

    ``differences`` holds ``(label, original, candidate)`` for each check whose
    record differs (the module's own execution is the check ``<module>``);
    ``error`` is set when the check could not run at all (the candidate does not
    compile, the decompiler raised, the target died).
    """
    version: Version
    checks: int = 0
    differences: List[tuple] = field(default_factory=list)
    error: Optional[str] = None
    candidate: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.error is None and not self.differences

    def format(self, source: bool = True) -> str:
        """What differs, one check after another (and the candidate, with ``source``)."""
        lines = ["Python %s: %d checks, %d differ%s" % (
            format_version(self.version), self.checks, len(self.differences),
            ", " + self.error if self.error else "")]
        for label, a, b in self.differences:
            lines.append("  %s" % label)
            for key in sorted(set(a or {}) | set(b or {})):
                x, y = (a or {}).get(key), (b or {}).get(key)
                if x != y and key != "label":
                    lines.append("    %-8s original:  %s" % (key, x))
                    lines.append("    %-8s candidate: %s" % ("", y))
        if source and self.candidate is not None and not self.ok:
            lines += ["  -- candidate --", self.candidate]
        return "\n".join(lines)


def _default_decompile() -> Callable:
    import depyf
    return depyf.decompile


def check_behaviour(source: str, version, decompile: Optional[Callable] = None,
                    filename: str = "<case>") -> BehaviourResult:
    """Run ``source`` and its decompilation under ``version`` and compare.

    ``decompile`` takes a code object (the host's version) or a CodeRecord and
    returns source (default ``depyf.decompile``). Raises TargetError only when
    there is no interpreter for ``version``.
    """
    version = parse_version(version)
    decompile = decompile or _default_decompile()
    result = BehaviourResult(version)
    try:
        if version == HOST:
            code = compile(source, filename, "exec")
        else:
            code = get_session(version).compile_module(source, filename)
    except (CompileError, SyntaxError) as exc:
        result.error = "original does not compile: %s" % exc
        return result
    try:
        result.candidate = decompile(code)
    except Exception as exc:  # a decompiler failure is a result
        result.error = "decompile: %s: %s" % (type(exc).__name__, exc)
        return result
    try:
        if version == HOST:
            answer = behave_code.behave(source, result.candidate, filename)
        else:
            answer = get_session(version).request({"op": "behave", "original": source,
                                                   "candidate": result.candidate,
                                                   "filename": filename})
    except TargetError as exc:
        result.error = "target: %s" % exc
        return result
    if not answer.get("ok") or not answer.get("compiles"):
        result.error = answer.get("error") or "?"
    checks = answer.get("checks") or []
    result.checks = len(checks)
    result.differences = [(c["label"], c["original"], c["candidate"])
                          for c in checks if not c["same"]]
    return result
