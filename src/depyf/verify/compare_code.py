"""Strict code-object comparison, run by the target interpreter itself.

This file is a STANDALONE script: CPython 3.8 to 3.13 runs it in a
subprocess, so it uses only the standard library, never imports depyf, and
sticks to syntax that 3.8 accepts. The host side is
:mod:`depyf.verify.roundtrip`.

Protocol: one JSON request per line on stdin, one JSON response per line on
stdout, in order. Every response carries the request's ``id``.

``{"op": "compile", "id", "original", "filename"}``
    -> ``{"id", "ok": true, "marshal": <base64 of marshal.dumps(module code)>}``
    or ``{"id", "ok": false, "error": "SyntaxError: ...", "lineno": 3}``.

``{"op": "check", "id", "original", "filename"}``
    -> ``{"id", "ok": bool, "error"}``: does the source compile at all.

``{"op": "unparse", "id", "original"}`` (3.9+)
    -> ``{"id", "ok", "source": ast.unparse(ast.parse(original))}``.

``{"op": "compare", "id", "original", "candidate" (text or null), "filename"}``
(the default op) ->
``{"id", "ok": true, "compiles": bool, "error": str|null, "objects": [...]}``
with one entry per code object of the ORIGINAL (the denominator), in
depth-first order::

    {"path": "<module>/f#0/<lambda>#1", "equal": bool, "deep": bool,
     "diff": "first difference, both sides" | null, "kind": "short label" | null}

``{"op": "compare_marshal", "id", "marshal", "candidate", "filename"}``
    the same answer as ``compare`` for an original given as the base64 of a
    module code object this interpreter marshalled (the body of a .pyc file),
    when there is no source to compile.

``{"op": "behave", "id", "original", "candidate", "filename"}``
    runs both sources and the checks the original lists, side by side
    (``behave_code.py`` beside this file, :func:`behave_code.behave`).

A null or non-compiling candidate gives ``compiles: false`` and every object
not equal. ``ok: false`` only when the original itself does not compile.

The strict rule (see docs/design.md, "Measuring"): code objects are
matched by the path of (name, k-th sibling with that name) from the module;
two are *equal* when argument counts, kind flags and the canonical
instruction lists (:func:`canonical_instructions`) are the same; *deep* when
also every nested object is deep-equal.

Example (shell)::

    $ echo '{"id": 1, "original": "x = 1", "candidate": "x = 1.0"}' | python3.9 compare_code.py
    {"id": 1, "ok": true, "compiles": true, "error": null, "objects": [{"path": "<module>", "equal": false, ...}]}
"""
import base64
import bisect
import dis
import json
import marshal
import sys
import types
import warnings

VERSION = sys.version_info[:2]

#: co_flags bits that say what kind of function a code object is.
KIND_FLAGS = (
    ("VARARGS", 0x04),
    ("VARKEYWORDS", 0x08),
    ("GENERATOR", 0x20),
    ("COROUTINE", 0x80),
    ("ITERABLE_COROUTINE", 0x100),
    ("ASYNC_GENERATOR", 0x200),
)
CO_OPTIMIZED = 0x01

#: Left out of the instruction list.
SKIPPED = frozenset(["NOP", "EXTENDED_ARG", "CACHE"])

#: 3.13 superinstructions -> the opnames of their two halves, in execution order.
FUSED = {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
}

JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs) | frozenset(getattr(dis, "hasjump", ()))
CONSTS = frozenset(dis.hasconst)

#: What stands in for the value stored to a class body's ``__firstlineno__``.
FIRSTLINENO_PLACEHOLDER = "<firstlineno>"
_FIRSTLINENO_STORE = "__firstlineno__"

# Ints with more digits than this are written in hex: 3.11+ refuses to
# repr() huge ints, and hex() has no such limit.
_INT_REPR_LIMIT = 1 << 200

#: Longest text of one side shown in a diff.
_SHOW = 120


# --------------------------------------------------------------------------
# Canonical form


def canon_const(value):
    """Type-exact text for a constant: ``1`` and ``1.0`` and ``True`` differ.

    Floats and complex numbers go by repr (so ``-0.0`` is not ``0.0`` and NaN
    equals NaN); tuples element by element; frozensets as their sorted
    element texts; code objects by name only (they are compared on their own).

    Example::

        >>> canon_const((1, 1.0, -0.0, frozenset([2, 1])))
        'tuple(int:1,float:1.0,float:-0.0,frozenset(int:1,int:2))'
    """
    kind = type(value)
    if kind is tuple:
        return "tuple(" + ",".join(canon_const(v) for v in value) + ")"
    if kind is frozenset:
        return "frozenset(" + ",".join(sorted(canon_const(v) for v in value)) + ")"
    if kind is types.CodeType:
        return "code:" + value.co_name
    if kind is int and not -_INT_REPR_LIMIT < value < _INT_REPR_LIMIT:
        return "int:" + hex(value)
    return kind.__name__ + ":" + repr(value)


def _arg_text(ins):
    """The comparable text of a non-jump, non-const argument: value and argrepr.

    ``x`` when the printed form is the value itself (names), ``2`` when there
    is no printed form, else both: ``'print' (NULL + print)``.
    """
    if ins.arg is None:
        return ""
    return arg_text(ins.argval, ins.argrepr)


def arg_text(argval, argrepr):
    """See :func:`_arg_text`.

    Example::

        >>> arg_text("x", "x"), arg_text(2, ""), arg_text("len", "NULL + len")
        ('x', '2', "'len' (NULL + len)")
    """
    if not argrepr:
        return repr(argval)
    if argrepr == str(argval):
        return argrepr
    return "%r (%s)" % (argval, argrepr)


def _kept(code):
    """(opname, offset, argtext, jump target offset) of every instruction the
    rule counts.

    A jump's argtext is left None here; :func:`canonical_instructions` fills
    it once all offsets are known. Fused pairs come out as two halves at the
    same offset.
    """
    rows = []
    for ins in dis.get_instructions(code):
        opname = ins.opname
        if opname in SKIPPED:
            continue
        halves = FUSED.get(opname)
        if halves is not None:
            for half, name in zip(halves, ins.argval):
                # A half looks exactly like the plain instruction: argval and
                # argrepr are both the variable name.
                rows.append((half, ins.offset, arg_text(name, name), None))
            continue
        if ins.opcode in JUMPS:
            rows.append((opname, ins.offset, None, ins.argval))
        elif ins.opcode in CONSTS:
            rows.append((opname, ins.offset, canon_const(ins.argval), None))
        else:
            rows.append((opname, ins.offset, _arg_text(ins), None))
    return rows


def _index_of(offsets, target):
    """Index of the first kept instruction at or after ``target`` (a removed
    NOP/EXTENDED_ARG/CACHE maps to the next kept instruction)."""
    return bisect.bisect_left(offsets, target)


def _handlers(code, offsets):
    """For each kept offset, its exception handler text (3.11+), else ''."""
    parse = getattr(dis, "_parse_exception_table", None)
    if parse is None:
        return [""] * len(offsets)
    entries = parse(code)
    if not entries:
        return [""] * len(offsets)
    starts = [e.start for e in entries]
    out = []
    for offset in offsets:
        i = bisect.bisect_right(starts, offset) - 1
        if i >= 0 and offset < entries[i].end:
            e = entries[i]
            out.append(" exc(->%d, %d%s)" % (_index_of(offsets, e.target), e.depth,
                                             ", lasti" if e.lasti else ""))
        else:
            out.append("")
    return out


def canonical_instructions(code, class_body=False):
    """The instruction list the strict rule compares, one text per instruction.

    Each text is ``OPNAME arg`` plus, on 3.11+, `` exc(->target, depth[,
    lasti])`` for the exception handler covering it. A jump's argument is
    ``->index`` in this list. In a class body the constant stored to
    ``__firstlineno__`` (3.13) is replaced by a placeholder.

    Example::

        >>> canonical_instructions(compile("x = 1", "<s>", "exec"))[-3:]  # doctest: +SKIP
        ['LOAD_CONST int:1', 'STORE_NAME x', 'RETURN_CONST NoneType:None']
    """
    rows = _kept(code)
    offsets = [r[1] for r in rows]
    handlers = _handlers(code, offsets)
    out = []
    for (opname, _offset, text, target), handler in zip(rows, handlers):
        if text is None:
            text = "->%d" % _index_of(offsets, target)
        if (class_body and opname == "STORE_NAME" and text == _FIRSTLINENO_STORE
                and out and out[-1][0] == "LOAD_CONST"):
            # The value is a line number, which the rule ignores.
            out[-1][1] = FIRSTLINENO_PLACEHOLDER
        out.append([opname, text, handler])
    return [opname + (" " + text if text else "") + handler for opname, text, handler in out]


def header(code):
    """Argument counts and kind flags, as ``(("argcount", 2), ...)``."""
    fields = [("argcount", code.co_argcount),
              ("posonlyargcount", getattr(code, "co_posonlyargcount", 0)),
              ("kwonlyargcount", code.co_kwonlyargcount)]
    flags = code.co_flags
    fields.append(("flags", "|".join(name for name, bit in KIND_FLAGS if flags & bit) or "-"))
    return tuple(fields)


# --------------------------------------------------------------------------
# Matching by path


def collect(module_code):
    """``(order, table)``: every code object by path, depth first.

    ``table[path] = (code, header, instructions, child_paths)``; a child's
    path is ``parent/name#k`` where k counts earlier siblings of that name.

    Example::

        >>> order, _ = collect(compile("f = lambda: (lambda: 1)", "<s>", "exec"))
        >>> order
        ['<module>', '<module>/<lambda>#0', '<module>/<lambda>#0/<lambda>#0']
    """
    order = []
    table = {}
    stack = [("<module>", module_code, True)]
    while stack:
        path, code, is_module = stack.pop()
        class_body = not is_module and not code.co_flags & CO_OPTIMIZED
        seen = {}
        children = []
        for const in code.co_consts:
            if type(const) is types.CodeType:
                k = seen.get(const.co_name, 0)
                seen[const.co_name] = k + 1
                children.append((path + "/" + const.co_name + "#" + str(k), const))
        order.append(path)
        table[path] = (code, header(code), canonical_instructions(code, class_body),
                       [p for p, _ in children])
        for child_path, child in reversed(children):
            stack.append((child_path, child, False))
    return order, table


# --------------------------------------------------------------------------
# Differences


def _short(text):
    return text if len(text) <= _SHOW else text[:_SHOW - 3] + "..."


def _opname(text):
    return text.split(" ", 1)[0]


def first_difference(orig, cand):
    """``(diff text, kind label)`` between two table entries, or ``(None, None)``.

    Kinds: ``header:<field>``, ``OPA/OPB`` (first differing opnames),
    ``arg:<OP>`` (same opname, other argument), ``handler:<OP>`` (same
    instruction, other exception handler), ``missing:<OP>`` (the candidate
    ends early), ``extra:<OP>`` (the candidate goes on).

    Example::

        >>> a = (None, (("argcount", 0),), ["LOAD_CONST int:1"], [])
        >>> b = (None, (("argcount", 0),), ["LOAD_CONST float:1.0"], [])
        >>> first_difference(a, b)
        ('#0: LOAD_CONST int:1 | candidate: LOAD_CONST float:1.0', 'arg:LOAD_CONST')
    """
    for (name, ov), (_n, cv) in zip(orig[1], cand[1]):
        if ov != cv:
            return "%s: %s | candidate: %s" % (name, ov, cv), "header:" + name
    a, b = orig[2], cand[2]
    if a == b:
        return None, None
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    if i == n:
        if len(a) > len(b):
            return ("#%d: %s | candidate ends (%d vs %d instructions)" % (
                i, _short(a[i]), len(a), len(b)), "missing:" + _opname(a[i]))
        return ("#%d: original ends | candidate: %s (%d vs %d instructions)" % (
            i, _short(b[i]), len(a), len(b)), "extra:" + _opname(b[i]))
    oa, ob = _opname(a[i]), _opname(b[i])
    if oa != ob:
        kind = oa + "/" + ob
    elif a[i].split(" exc(", 1)[0] == b[i].split(" exc(", 1)[0]:
        kind = "handler:" + oa
    else:
        kind = "arg:" + oa
    return "#%d: %s | candidate: %s" % (i, _short(a[i]), _short(b[i])), kind


def compare_tables(order, orig, cand):
    """Per-object verdicts (the response's ``objects``) for two tables.

    ``cand`` is None when there is no compiled candidate at all.
    """
    equal = {}
    diffs = {}
    for path in order:
        other = cand.get(path) if cand is not None else None
        if other is None:
            equal[path] = False
            diffs[path] = (("no such code object in the candidate", "missing object")
                           if cand is not None else ("no compiled candidate", "no candidate"))
            continue
        text, kind = first_difference(orig[path], other)
        equal[path] = text is None
        diffs[path] = (text, kind)
    deep = {}
    # Children come after their parent in `order`: walk backwards.
    for path in reversed(order):
        deep[path] = equal[path] and all(deep[c] for c in orig[path][3])
    out = []
    for path in order:
        text, kind = diffs[path]
        out.append({"path": path, "equal": equal[path], "deep": deep[path],
                    "diff": text, "kind": kind})
    return out


# --------------------------------------------------------------------------
# Requests

_last_compiled = [None, None]


def compile_source(source, filename):
    """``compile(source, filename, "exec", dont_inherit=True)``, keeping the
    last result: a compare usually follows a compile of the same original."""
    key = (source, filename)
    if _last_compiled[0] == key:
        return _last_compiled[1]
    code = compile(source, filename, "exec", dont_inherit=True)
    _last_compiled[0] = key
    _last_compiled[1] = code
    return code


def _error_text(exc):
    text = "%s: %s" % (type(exc).__name__, exc)
    return text if len(text) <= 400 else text[:397] + "..."


def _try_compile(source, filename):
    """(code, None) or (None, error dict)."""
    try:
        return compile_source(source, filename), None
    except (SyntaxError, ValueError, TypeError, OverflowError, RecursionError, MemoryError) as exc:
        err = {"error": _error_text(exc)}
        if isinstance(exc, SyntaxError):
            err["lineno"] = exc.lineno
        return None, err


def op_compile(req):
    code, err = _try_compile(req["original"], req.get("filename") or "<original>")
    if code is None:
        return dict(err, ok=False)
    return {"ok": True, "marshal": base64.b64encode(marshal.dumps(code)).decode("ascii")}


def op_check(req):
    code, err = _try_compile(req["original"], req.get("filename") or "<original>")
    return {"ok": True} if code is not None else dict(err, ok=False)


def op_unparse(req):
    import ast
    if not hasattr(ast, "unparse"):
        return {"ok": False, "error": "ast.unparse needs 3.9+"}
    try:
        return {"ok": True, "source": ast.unparse(ast.parse(req["original"]))}
    except Exception as exc:  # a bad source is an answer, not a crash
        return {"ok": False, "error": _error_text(exc)}


def op_compare(req):
    filename = req.get("filename") or "<original>"
    code, err = _try_compile(req["original"], filename)
    if code is None:
        return dict(err, ok=False, error="original does not compile: " + err["error"])
    order, orig = collect(code)
    candidate = req.get("candidate")
    cand = None
    error = None
    if candidate is None:
        error = req.get("reason") or "no candidate source"
    else:
        # A different filename keeps the one-entry cache on the original.
        cand_code, cerr = _try_compile(candidate, filename + " (candidate)")
        if cand_code is None:
            error = cerr["error"]
        else:
            cand = collect(cand_code)[1]
    return {"ok": True, "compiles": cand is not None, "error": error,
            "objects": compare_tables(order, orig, cand)}


def op_compare_marshal(req):
    try:
        code = marshal.loads(base64.b64decode(req["marshal"]))
    except (ValueError, EOFError, TypeError) as exc:
        return {"ok": False, "error": "original: bad marshal data: " + _error_text(exc)}
    order, orig = collect(code)
    filename = req.get("filename") or "<original>"
    cand_code, cerr = _try_compile(req.get("candidate") or "", filename + " (candidate)")
    cand = collect(cand_code)[1] if cand_code is not None else None
    return {"ok": True, "compiles": cand is not None, "error": cerr and cerr["error"],
            "objects": compare_tables(order, orig, cand)}


_LOADED = {}


def op_behave(req):
    module = _LOADED.get("behave_code")
    if module is None:
        # (loaded from its file: -I leaves this script's folder off sys.path)
        import importlib.util
        import os
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "behave_code.py")
        spec = importlib.util.spec_from_file_location("behave_code", path)
        module = _LOADED["behave_code"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module.op_behave(req)


OPS = {"compile": op_compile, "compare_marshal": op_compare_marshal, "check": op_check,
       "unparse": op_unparse, "compare": op_compare, "behave": op_behave}


def handle(req):
    """Answer one request dict (never raises)."""
    op = OPS.get(req.get("op") or "compare")
    try:
        if op is None:
            resp = {"ok": False, "error": "unknown op %r" % req.get("op")}
        else:
            resp = op(req)
    except Exception as exc:  # report harness bugs instead of dying mid-stream
        resp = {"ok": False, "error": "internal: " + _error_text(exc)}
    resp["id"] = req.get("id")
    return resp


def main():
    # Compiling arbitrary sources warns (invalid escapes, `is` with a
    # literal...); stderr is not read while we run, so keep it quiet.
    warnings.simplefilter("ignore")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            req = json.loads(line.decode("utf-8"))
        except ValueError as exc:
            req = None
            resp = {"id": None, "ok": False, "error": "bad request: " + _error_text(exc)}
        if req is not None:
            resp = handle(req)
        out.write(json.dumps(resp, ensure_ascii=True).encode("ascii") + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
