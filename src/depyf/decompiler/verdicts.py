"""The verdicts of validation on code objects, their counts, and the mark
of code no interpreter could check.

Each code object of a decompilation is *identical* to its original by the
strict rule, *equivalent* to it (the same control flow, or the same effects in the same
order with temporaries of its own), written by the
*fallback*, or *unverified* (no interpreter of its version to check against):
:mod:`depyf.decompiler.validate` decides which.

Example::

    >>> format_counts(count_verdicts([("<module>", "identical"), ("<module>/f#0", "fallback")]))
    '1 identical, 0 equivalent, 1 fallback, 0 unverified'
"""
from __future__ import annotations

import io
import tokenize
from typing import Dict, Iterable, Tuple

#: The four verdicts on a code object, in the order counts are shown.
VERDICTS = ("identical", "equivalent", "fallback", "unverified")


def count_verdicts(verdicts: Iterable[Tuple[str, str]]) -> Dict[str, int]:
    """Verdict -> number of objects, all four verdicts present.

    >>> count_verdicts([("<module>", "identical"), ("<module>/f#0", "fallback")])
    {'identical': 1, 'equivalent': 0, 'fallback': 1, 'unverified': 0}
    """
    counts = dict.fromkeys(VERDICTS, 0)
    for _path, verdict in verdicts:
        counts[verdict] += 1
    return counts


def format_counts(counts: Dict[str, int]) -> str:
    """``3 identical, 1 equivalent, 0 fallback, 0 unverified``."""
    return ", ".join("%d %s" % (counts.get(v, 0), v) for v in VERDICTS)


def unverified_comment(reason: str) -> str:
    """``# depyf: unverified, <reason>``.

    >>> unverified_comment("no Python 3.9 to check against")
    '# depyf: unverified, no Python 3.9 to check against'
    """
    return "# depyf: unverified, %s" % reason


def mark_unverified(text: str, reason: str) -> str:
    """``text`` with :func:`unverified_comment` at the end of each ``def``
    line (the first line of the header that can hold a comment) and at the
    top: on the first line when it is empty or can hold a comment, else on a
    line of its own above it.

    >>> print(mark_unverified("\\ndef f(x):\\n    return x\\n", "not checked"), end="")
    # depyf: unverified, not checked
    def f(x):  # depyf: unverified, not checked
        return x
    """
    comment = unverified_comment(reason)
    lines = text.splitlines(True)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return comment + "\n" + text
    covered = set()
    for tok in tokens:
        covered.update(range(tok.start[0], tok.end[0]))   # line ends inside the token
    defs = []
    previous = None
    for tok in tokens:
        if tok.type == tokenize.NAME and tok.string == "def" and (
                previous is None or previous.type in (tokenize.NEWLINE, tokenize.INDENT,
                                                      tokenize.DEDENT, tokenize.NL)
                or previous.type == tokenize.NAME and previous.string == "async"):
            defs.append(tok.start[0])
        if tok.type not in (tokenize.COMMENT, tokenize.NL):
            previous = tok
    marked = set()
    for line in defs:
        while line <= len(lines) and (line in covered or lines[line - 1].rstrip("\r\n").endswith("\\")):
            line += 1
        if line <= len(lines) and line not in marked:
            marked.add(line)
            lines[line - 1] = _with_comment(lines[line - 1], comment)
    if not lines:
        return comment + "\n"
    first = lines[0]
    if not first.strip():
        lines[0] = comment + "\n"
    elif 1 not in covered and 1 not in marked and not first.rstrip("\r\n").endswith("\\"):
        lines[0] = _with_comment(first, comment)
    elif 1 not in marked:
        lines.insert(0, comment + "\n")
    return "".join(lines)


def _with_comment(line: str, comment: str) -> str:
    body = line.rstrip("\r\n")
    return body + "  " + comment + line[len(body):]
