"""A readable disassembly of decoded code, nested code objects included.

Example::

    >>> from depyf.bytecode import decode
    >>> print(format_code(compile("x = 1", "<s>", "exec")))     # doctest: +SKIP
    Disassembly of <module> (<s>, line 1, Python 3.11):
      0           0 RESUME                   0
      1           2 LOAD_CONST               0 (1)
    ...
"""
from __future__ import annotations

from typing import List

from .argrepr import const_repr
from .code import CodeRecord
from .decode import as_record, decode


def format_code(obj, recursive: bool = True) -> str:
    """Disassemble ``obj`` (anything :func:`decode` takes) to text."""
    record = as_record(obj)
    blocks = [_format_one(rec) for rec in (record.walk() if recursive else [record])]
    return "\n\n".join(blocks)


def _format_one(rec: CodeRecord) -> str:
    bc = decode(rec)
    targets = {ins.target.offset for ins in bc if ins.target is not None}
    targets.update(e.target for e in bc.exception_entries)
    lines: List[str] = ["Disassembly of %s (%s, line %d, Python %d.%d):"
                        % (rec.qualname or rec.name, rec.filename, rec.firstlineno, *rec.version)]
    flags = [name for bit, name in sorted(bc.table.compiler_flags.items()) if rec.flags & bit]
    lines.append("  args: %d (posonly %d, kwonly %d)  flags: %s"
                 % (rec.argcount, rec.posonlyargcount, rec.kwonlyargcount,
                    ", ".join(flags) or "none"))
    width = max((len(str(i.line)) for i in bc if i.line is not None), default=1)
    for ins in bc:
        line = str(ins.line) if ins.starts_line else ""
        mark = ">>" if ins.offset in targets or ins.start_offset in targets else "  "
        text = "  %*s %s %5d %-24s" % (width, line, mark, ins.offset, ins.opname)
        if ins.arg is not None:
            text += " %5d" % ins.arg
            rep = ins.argrepr
            if rep:
                text += " (%s)" % rep
        lines.append(text.rstrip())
    if bc.exception_entries:
        lines.append("  ExceptionTable:")
        for e in bc.exception_entries:
            lines.append("    %d to %d -> %d [%d]%s"
                         % (e.start, e.end, e.target, e.depth, " lasti" if e.lasti else ""))
    return "\n".join(lines)


__all__ = ["format_code", "const_repr"]
