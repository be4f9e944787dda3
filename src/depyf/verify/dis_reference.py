"""Reference disassembly of .pyc files by the interpreter that wrote them.

This file is a STANDALONE script: a target interpreter (CPython 3.8 to 3.15)
runs it in a subprocess, so it uses only the standard library, never imports
depyf, and sticks to syntax that 3.8 accepts. For each .pyc path (argv, or
stdin one per line) it loads the code with the target's own ``marshal``,
disassembles it with the target's own ``dis`` and prints one JSON line::

    {"path": ..., "ok": true, "code": <canon tree>}
    {"path": ..., "ok": false, "error": "ValueError: bad marshal data"}

The host imports :func:`canon` and :func:`code_tree` from this same file
(``depyf.verify.dis_reference``) to put depyf's own decoder output, and live
code of the host, in exactly the same form.

Canon tree of a code object::

    {"name": str, "qualname": str (co_qualname on 3.11+, else co_name),
     "instructions": [[opname, arg, argval, jump_target, line, positions, offset], ...],
     "exceptions": [[start, end, target, depth, lasti], ...]}   # [] before 3.11

EXTENDED_ARG and CACHE are left out (their argument is folded into the next
instruction, whose ``offset`` is its own, not the prefix's). ``jump_target``
is the offset of the instruction a jump lands on: dis's argval, moved past
EXTENDED_ARG prefixes when it names one. Each row's argval is dis's, except
3.11's KW_NAMES (see :func:`argval_of`).

Example (shell)::

    $ python3.9 src/depyf/verify/dis_reference.py some/__pycache__/mod.cpython-39.pyc
    {"path": "...", "ok": true, "code": {"name": "<module>", ...}}
"""
import dis
import json
import marshal
import os
import sys
import types

VERSION = sys.version_info[:2]

#: Bytes of header in front of the marshalled code (3.7+: magic, flags, 8 bytes).
PYC_HEADER_SIZE = 16

#: Opcodes whose argval is a jump target offset.
JUMP_OPCODES = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)

#: Left out of the instruction list: depyf folds/skips them.
SKIPPED_OPNAMES = frozenset(["EXTENDED_ARG", "CACHE"])

# FORMAT_VALUE's argval holds these builtins (dis.FORMAT_VALUE_CONVERTERS).
_BUILTIN_NAMES = ((str, "str"), (repr, "repr"), (ascii, "ascii"))

# Ints outside this range are written as hex: 3.11+ refuses to str() very
# large ints, and JSON readers other than Python's may lose precision.
_INT_LIMIT = 1 << 64


def canon(value, code_hook=None):
    """A JSON-friendly, type-exact form of a constant or argval.

    ``code_hook(value)`` returns the canon tree of a code-like value, or None
    when ``value`` is not code; by default live code objects are handled with
    :func:`code_tree`. The host passes a hook for depyf's CodeRecord.

    Example::

        >>> canon((1, 1.0, True, None, b"\\x01"))
        {'tuple': [1, {'float': '1.0'}, {'const': 'True'}, {'const': 'None'}, {'bytes': '01'}]}
    """
    hook = code_hook or live_code_tree
    tree = hook(value)
    if tree is not None:
        return {"code": tree}
    kind = type(value)
    # Singletons first: bool is an int subclass and must not read as one.
    if value is None or value is True or value is False or value is Ellipsis:
        return {"const": repr(value)}
    if kind is int:
        if -_INT_LIMIT < value < _INT_LIMIT:
            return value
        return {"int": hex(value)}
    if kind is str:
        return value
    if kind is float:
        return {"float": repr(value)}
    if kind is complex:
        return {"complex": repr(value)}
    if kind is bytes:
        return {"bytes": value.hex()}
    if kind is tuple:
        return {"tuple": [canon(v, code_hook) for v in value]}
    if kind is list:
        return {"list": [canon(v, code_hook) for v in value]}
    if kind is frozenset or kind is set:
        items = [canon(v, code_hook) for v in value]
        # Set order is hash order, which differs between processes: sort.
        items.sort(key=_sort_key)
        return {kind.__name__: items}
    for builtin, name in _BUILTIN_NAMES:
        if value is builtin:
            return {"builtin": name}
    if kind is slice:
        # 3.14+ constants (marshal 5)
        return {"slice": [canon(value.start, code_hook), canon(value.stop, code_hook),
                          canon(value.step, code_hook)]}
    if kind.__name__ == "frozendict":
        # 3.15's builtin (marshal 6), or depyf's stand-in for it on an older host
        items = [[canon(k, code_hook), canon(v, code_hook)] for k, v in value.items()]
        return {"frozendict": items}
    return {"repr": repr(value), "type": kind.__name__}


def _sort_key(item):
    return json.dumps(item, sort_keys=True, ensure_ascii=True)


def live_code_tree(value):
    """The canon tree of ``value`` if it is a live code object, else None."""
    if isinstance(value, types.CodeType):
        return code_tree(value)
    return None


def code_tree(code):
    """The canon tree of a live code object, nested code included.

    Example::

        >>> t = code_tree(compile("x = 1", "<s>", "exec"))
        >>> t["name"], [r[:3] for r in t["instructions"] if r[0] == "STORE_NAME"]
        ('<module>', [['STORE_NAME', 0, 'x']])
    """
    lines = line_table(code)
    positions = position_table(code)
    instructions = list(dis.get_instructions(code))
    landing = prefix_landing(instructions)
    rows = []
    for ins in instructions:
        if ins.opname in SKIPPED_OPNAMES:
            continue
        unit = ins.offset // 2
        target = None
        if ins.opcode in JUMP_OPCODES:
            target = landing.get(ins.argval, ins.argval)
        rows.append([
            ins.opname,
            ins.arg,
            canon(argval_of(code, ins)),
            target,
            lines[unit] if unit < len(lines) else None,
            list(positions[unit]) if positions is not None and unit < len(positions) else None,
            ins.offset,
        ])
    return {
        "name": code.co_name,
        "qualname": getattr(code, "co_qualname", code.co_name) if VERSION >= (3, 11) else code.co_name,
        "instructions": rows,
        "exceptions": exception_rows(code),
    }


def prefix_landing(instructions):
    """{offset of an EXTENDED_ARG: offset of the instruction it prefixes}.

    A jump's argval may name an EXTENDED_ARG; the instruction it lands on
    (depyf's ``ins.target``) is the one that prefix belongs to. The raw
    offset is still checked, as the argval.
    """
    landing, pending = {}, []
    for ins in instructions:
        if ins.opname == "EXTENDED_ARG":
            pending.append(ins.offset)
        elif ins.opname != "CACHE":
            for offset in pending:
                landing[offset] = ins.offset
            pending = []
    return landing


def argval_of(code, ins):
    """``ins.argval``, except where this version's dis does not resolve it.

    The one deliberate deviation: 3.11's dis leaves KW_NAMES' argval as
    ``dis.UNKNOWN`` (it only resolves LOAD_CONST; fixed in 3.12), though the
    argument indexes co_consts like any other hasconst opcode. Use the
    constant, as 3.12+ dis does.
    """
    unknown = getattr(dis, "UNKNOWN", None)
    if unknown is not None and ins.argval is unknown and ins.opcode in dis.hasconst:
        return code.co_consts[ins.arg]
    return ins.argval


def line_table(code):
    """The line number in force at each code unit (2 bytes) of ``code``.

    3.8/3.9: the last line start at or before the unit (findlinestarts);
    3.10+: the ``co_lines()`` range containing it, None where none does.
    """
    units = len(code.co_code) // 2
    table = [None] * units
    if hasattr(code, "co_lines"):
        for start, end, line in code.co_lines():
            for unit in range(start // 2, min(end // 2, units)):
                table[unit] = line
        return table
    starts = dict(dis.findlinestarts(code))
    line = None
    for unit in range(units):
        line = starts.get(unit * 2, line)
        table[unit] = line
    return table


def position_table(code):
    """3.11+: ``co_positions()`` as a list indexed by code unit, else None."""
    if not hasattr(code, "co_positions"):
        return None
    return list(code.co_positions())


def exception_rows(code):
    """3.11+ exception table as [[start, end, target, depth, lasti]], else []."""
    if not hasattr(dis, "_parse_exception_table"):
        return []
    return [[e.start, e.end, e.target, e.depth, bool(e.lasti)]
            for e in dis._parse_exception_table(code)]


def load_pyc(path):
    """The top-level code object of a .pyc, via this interpreter's marshal."""
    with open(path, "rb") as f:
        data = f.read()
    code = marshal.loads(data[PYC_HEADER_SIZE:])
    if not isinstance(code, types.CodeType):
        raise TypeError("marshalled object is %s, not code" % type(code).__name__)
    return code


def describe_file(path):
    """The result record (a dict) for one .pyc path; never raises."""
    try:
        code = load_pyc(path)
    except Exception as exc:  # the target itself cannot load it
        return {"path": path, "ok": False, "stage": "load", "error": _error_text(exc)}
    try:
        tree = code_tree(code)
    except Exception as exc:  # dis itself failed on code the target loaded
        return {"path": path, "ok": False, "stage": "dis", "error": _error_text(exc)}
    return {"path": path, "ok": True, "code": tree}


def _error_text(exc):
    return "%s: %s" % (type(exc).__name__, exc)


def _paths(argv):
    if argv:
        for path in argv:
            yield path
        return
    # readline, not iteration: answer each path as soon as it arrives so the
    # parent can stream paths in and results out without deadlock. Bytes and
    # fsdecode, so the locale of the target cannot mangle a path.
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            return
        line = line.rstrip(b"\r\n")
        if line:
            yield os.fsdecode(line)


def main(argv=None):
    """Describe every path given (argv, else stdin); one JSON line each."""
    argv = sys.argv[1:] if argv is None else argv
    out = sys.stdout
    for path in _paths(argv):
        record = describe_file(path)
        try:
            text = json.dumps(record, ensure_ascii=True, separators=(",", ":"))
        except Exception as exc:  # canon should prevent this; stay line-per-file
            text = json.dumps({"path": path, "ok": False, "stage": "json",
                               "error": _error_text(exc)})
        out.write(text + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
