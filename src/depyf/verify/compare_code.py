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
     "equivalent": bool, "diff": "first difference, both sides" | null,
     "kind": "short label" | null}

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
also every nested object is deep-equal; *equivalent* when equal, or when the
headers are the same and so are the control-flow graphs up to block order and
branch polarity (:func:`equivalent_flow`).

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

#: 3.13 superinstructions -> the opnames of their two halves, in execution order
#: (3.14's borrowing pair too: see :data:`SAME_AS`).
FUSED = {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
    "LOAD_FAST_BORROW_LOAD_FAST_BORROW": ("LOAD_FAST", "LOAD_FAST"),
}

#: 3.14+: opnames that count as another. The compiler decides to borrow a
#: reference after laying the code out (a reference-count optimisation that
#: depends on what follows a load), so it says nothing of the source.
SAME_AS = {"LOAD_FAST_BORROW": "LOAD_FAST"}

#: Loads of the value stored to a class body's ``__firstlineno__`` (3.14 writes
#: a small line number with LOAD_SMALL_INT).
_FIRSTLINENO_LOADS = frozenset(["LOAD_CONST", "LOAD_SMALL_INT"])

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


def _kept(code, instructions=None):
    """(opname, offset, argtext, jump target offset) of every instruction the
    rule counts (of ``instructions``, ``dis.get_instructions(code)`` as a
    list, when the caller has them).

    A jump's argtext is left None here; :func:`canonical_instructions` fills
    it once all offsets are known. Fused pairs come out as two halves at the
    same offset.
    """
    rows = []
    for ins in instructions if instructions is not None else dis.get_instructions(code):
        opname = SAME_AS.get(ins.opname, ins.opname)
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
    """For each kept offset, its exception handler ``(target index, depth,
    lasti)`` (3.11+), else None."""
    parse = getattr(dis, "_parse_exception_table", None)
    if parse is None:
        return [None] * len(offsets)
    entries = parse(code)
    if not entries:
        return [None] * len(offsets)
    starts = [e.start for e in entries]
    out = []
    for offset in offsets:
        i = bisect.bisect_right(starts, offset) - 1
        if i >= 0 and offset < entries[i].end:
            e = entries[i]
            out.append((_index_of(offsets, e.target), e.depth, bool(e.lasti)))
        else:
            out.append(None)
    return out


def canonical_rows(code, class_body=False, instructions=None):
    """The instructions the strict rule compares, as ``(opname, argtext,
    handler, target)`` rows: ``argtext`` None and ``target`` the index of the
    row jumped to for a jump, else ``target`` None; ``handler`` the
    ``(target index, depth, lasti)`` of the exception handler covering the
    instruction (3.11+), or None. In a class body the constant stored to
    ``__firstlineno__`` (3.13) is replaced by a placeholder.

    Example::

        >>> canonical_rows(compile("x = 1", "<s>", "exec"))[-2:]  # doctest: +SKIP
        [('STORE_NAME', 'x', None, None), ('RETURN_CONST', 'NoneType:None', None, None)]
    """
    rows = _kept(code, instructions)
    offsets = [r[1] for r in rows]
    handlers = _handlers(code, offsets)
    out = []
    for (opname, _offset, text, target), handler in zip(rows, handlers):
        if target is not None:
            target = _index_of(offsets, target)
        if (class_body and opname == "STORE_NAME" and text == _FIRSTLINENO_STORE
                and out and out[-1][0] in _FIRSTLINENO_LOADS):
            # The value is a line number, which the rule ignores.
            out[-1] = ("LOAD_CONST", FIRSTLINENO_PLACEHOLDER, out[-1][2], None)
        out.append((opname, text, handler, target))
    return out


def _handler_text(handler):
    if handler is None:
        return ""
    return " exc(->%d, %d%s)" % (handler[0], handler[1], ", lasti" if handler[2] else "")


def format_rows(rows):
    """The texts of :func:`canonical_instructions` for rows of :func:`canonical_rows`."""
    out = []
    for opname, text, handler, target in rows:
        if target is not None:
            text = "->%d" % target
        out.append(opname + (" " + text if text else "") + _handler_text(handler))
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
    return format_rows(canonical_rows(code, class_body))


def header(code):
    """Argument counts and kind flags, as ``(("argcount", 2), ...)``."""
    fields = [("argcount", code.co_argcount),
              ("posonlyargcount", getattr(code, "co_posonlyargcount", 0)),
              ("kwonlyargcount", code.co_kwonlyargcount)]
    flags = code.co_flags
    fields.append(("flags", "|".join(name for name, bit in KIND_FLAGS if flags & bit) or "-"))
    return tuple(fields)


# --------------------------------------------------------------------------
# Equivalence: the same control-flow graph

#: Jumps that only say where to go on: block order decides whether the
#: compiler writes one or falls through, so they are edges, not instructions.
UNCONDITIONAL = frozenset(["JUMP_FORWARD", "JUMP_ABSOLUTE", "JUMP_BACKWARD",
                           "JUMP_BACKWARD_NO_INTERRUPT", "JUMP", "JUMP_NO_INTERRUPT"])

#: 3.14+: marks the path a branch falls into (for the specialising
#: interpreter's branch counts): part of the edge, which either polarity
#: of the test lays out on its own side.
EDGE_MARKERS = frozenset(["NOT_TAKEN"])

#: Instructions after which the next one is never reached from them.
NO_FALL = frozenset(["RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE"])


def _polarity_table():
    """Branch opname -> (test, label of the jump's edge, label of the fall's).

    A test jumping one way to A and falling into B is the same test jumping
    the other way to B and falling into A; 3.11's FORWARD/BACKWARD forms say
    only where the target lies.
    """
    table = {}
    pairs = (("TRUE", "FALSE", "<bool>", "true", "false"),
             ("NONE", "NOT_NONE", "<none>", "none", "not none"))
    for yes, no, test, yes_label, no_label in pairs:
        for direction in ("", "FORWARD_", "BACKWARD_"):
            table["POP_JUMP_%sIF_%s" % (direction, yes)] = ("POP_JUMP_IF" + test, yes_label, no_label)
            table["POP_JUMP_%sIF_%s" % (direction, no)] = ("POP_JUMP_IF" + test, no_label, yes_label)
    return table


#: Branches compared up to polarity (others keep their opname, and their
#: edges are "jump" and "fall").
POLARITY = _polarity_table()


def flow_graph(rows):
    """``(entry, blocks)``: the basic blocks of :func:`canonical_rows`.

    ``blocks[start] = [body, term]``; ``body`` lists ``(text, handler)`` for
    every instruction but jumps (``handler`` as in the rows, its target a
    block start); ``term`` is ``(kind, edges, handler)``: kind ``"next"``
    with one edge ``("next", start)`` (an unconditional jump or falling into
    the next block: which one is a matter of block order), ``"stop"`` with
    none (a return or raise ends the block), or a branch's test with its
    labelled edges (:data:`POLARITY`, else ``"jump"`` and ``"fall"``) and the
    handler covering the branch (a test can raise). Index ``len(rows)``
    stands for the end of the code, should something jump or fall there.
    Empty blocks that only pass control on are bypassed, and a block that
    is the only way into the block after it is joined with it, so that
    where the compiler cut and laid out blocks does not matter; blocks not
    reachable from the entry (over any edge) are left out.

    Example::

        >>> entry, blocks = flow_graph([("LOAD_FAST", "x", None, None),
        ...     ("POP_JUMP_IF_FALSE", None, None, 3), ("RETURN_CONST", "int:1", None, None),
        ...     ("RETURN_CONST", "int:2", None, None)])
        >>> blocks[entry][1]
        ('POP_JUMP_IF<bool>', (('false', 3), ('true', 2)), None)
    """
    n = len(rows)
    leaders = set([0])
    for i, (opname, _text, handler, target) in enumerate(rows):
        if handler is not None:
            leaders.add(handler[0])
        if target is not None:
            leaders.add(target)
            leaders.add(i + 1)
        elif opname in NO_FALL:
            leaders.add(i + 1)
    starts = sorted(leaders)
    blocks = {}
    for k, start in enumerate(starts):
        if start >= n:
            blocks[start] = [[], ("stop", (), None)]
            continue
        end = starts[k + 1] if k + 1 < len(starts) else n
        body = []
        for opname, text, handler, target in rows[start:end]:
            if target is None and opname not in EDGE_MARKERS:
                body.append((opname + (" " + text if text else ""), handler))
        opname, _text, handler, target = rows[end - 1]
        if target is None:
            term = ("stop", (), None) if opname in NO_FALL else ("next", (("next", end),), None)
        elif opname in UNCONDITIONAL:
            # (only an interrupt can be raised at a jump: its handler is not compared)
            term = ("next", (("next", target),), None)
        else:
            test, jump_label, fall_label = POLARITY.get(opname, (opname, "jump", "fall"))
            term = (test, tuple(sorted([(jump_label, target), (fall_label, end)])), handler)
        blocks[start] = [body, term]
    if n not in blocks and any(edge[1] == n for b in blocks.values() for edge in b[1][1]):
        blocks[n] = [[], ("stop", (), None)]
    return _simplify(0, blocks)


def _simplify(entry, blocks):
    """Bypass empty pass-on blocks, keep what the entry reaches, join chains."""
    def onward(start):
        seen = set()
        while start not in seen:
            body, term = blocks[start]
            if body or term[0] != "next":
                return start
            seen.add(start)
            start = term[1][0][1]
        return start        # an empty endless loop stays as it is

    def redirect(handler):
        return None if handler is None else (onward(handler[0]),) + tuple(handler[1:])

    for block in blocks.values():
        body, (kind, edges, handler) = block
        block[0] = [(text, redirect(h)) for text, h in body]
        block[1] = (kind, tuple((label, onward(to)) for label, to in edges), redirect(handler))
    entry = onward(entry)

    reached = {entry: None}
    stack = [entry]
    preds = {}
    while stack:
        start = stack.pop()
        for to in _successors(blocks[start]):
            preds[to] = preds.get(to, 0) + 1
            if to not in reached:
                reached[to] = None
                stack.append(to)
    kept = dict((start, blocks[start]) for start in reached)
    for start in sorted(kept):
        block = kept.get(start)
        while block is not None and block[1][0] == "next":
            to = block[1][1][0][1]
            if to == start or to == entry or preds.get(to) != 1:
                break
            following = kept.pop(to)
            block[0] = block[0] + following[0]
            block[1] = following[1]
    return entry, kept


def _successors(block):
    body, (_kind, edges, handler) = block
    out = [h[0] for _text, h in body if h is not None]
    out.extend(to for _label, to in edges)
    if handler is not None:
        out.append(handler[0])
    return out


def equivalent_flow(rows_a, rows_b):
    """Are two instruction lists (:func:`canonical_rows`) the same control
    flow: blocks with the same instructions, joined by the same typed edges
    (exception edges with their depth and lasti), up to block order and
    branch polarity, unreachable blocks ignored?

    Example (``if x: a()`` / ``else: b()`` written both ways round)::

        >>> def rows(text):
        ...     return canonical_rows(compile(text, "<s>", "exec"))
        >>> equivalent_flow(rows("if x: a()\\nelse: b()"), rows("if not x: b()\\nelse: a()"))
        True
        >>> equivalent_flow(rows("if x: a()\\nelse: b()"), rows("if x: b()\\nelse: a()"))
        False
    """
    entry_a, blocks_a = flow_graph(rows_a)
    entry_b, blocks_b = flow_graph(rows_b)
    if len(blocks_a) != len(blocks_b):
        return False
    there = {entry_a: entry_b}
    back = {entry_b: entry_a}
    stack = [(entry_a, entry_b)]

    def pair(a, b):
        if a in there or b in back:
            return there.get(a) == b and back.get(b) == a
        there[a] = b
        back[b] = a
        stack.append((a, b))
        return True

    while stack:
        a, b = stack.pop()
        body_a, (kind_a, edges_a, handler_a) = blocks_a[a]
        body_b, (kind_b, edges_b, handler_b) = blocks_b[b]
        if kind_a != kind_b or len(body_a) != len(body_b) or len(edges_a) != len(edges_b):
            return False
        for (text_a, h_a), (text_b, h_b) in zip(body_a, body_b):
            if text_a != text_b or not _same_handler(h_a, h_b, pair):
                return False
        if not _same_handler(handler_a, handler_b, pair):
            return False
        for (label_a, to_a), (label_b, to_b) in zip(edges_a, edges_b):
            if label_a != label_b or not pair(to_a, to_b):
                return False
    return True


def _same_handler(a, b, pair):
    if a is None or b is None:
        return a is b
    return a[1:] == b[1:] and pair(a[0], b[0])


# --------------------------------------------------------------------------
# Matching by path


class CodeEntry(object):
    """One code object of a :func:`collect` table; its canonical forms are
    computed when first asked for. Indexing gives ``(code, header,
    instructions, child_paths)``, the table's entries of old."""

    __slots__ = ("code", "class_body", "children", "_header", "_rows", "_instructions", "_disassembled")

    def __init__(self, code, class_body, children):
        self.code = code
        self.class_body = class_body
        self.children = children
        self._header = self._rows = self._instructions = self._disassembled = None

    @property
    def disassembled(self):
        """``dis.get_instructions(code)`` as a list (made once: it is dear)."""
        if self._disassembled is None:
            self._disassembled = list(dis.get_instructions(self.code))
        return self._disassembled

    @property
    def header(self):
        if self._header is None:
            self._header = header(self.code)
        return self._header

    @property
    def rows(self):
        if self._rows is None:
            self._rows = canonical_rows(self.code, self.class_body, self.disassembled)
        return self._rows

    @property
    def instructions(self):
        if self._instructions is None:
            self._instructions = format_rows(self.rows)
        return self._instructions

    def __getitem__(self, index):
        # (one field at a time: the instruction list is the dear one)
        return getattr(self, ("code", "header", "instructions", "children")[index])


def collect(module_code, root="<module>"):
    """``(order, table)``: every code object by path, depth first.

    ``table[path]`` is a :class:`CodeEntry` (``(code, header, instructions,
    child_paths)`` by index); a child's path is ``parent/name#k`` where k
    counts earlier siblings of that name. ``root`` names the top object.

    Example::

        >>> order, _ = collect(compile("f = lambda: (lambda: 1)", "<s>", "exec"))
        >>> order
        ['<module>', '<module>/<lambda>#0', '<module>/<lambda>#0/<lambda>#0']
    """
    order = []
    table = {}
    stack = [(root, module_code)]
    while stack:
        path, code = stack.pop()
        # A class body is the one kind of code that is neither optimized nor a module.
        class_body = not code.co_flags & CO_OPTIMIZED and code.co_name != "<module>"
        seen = {}
        children = []
        for const in code.co_consts:
            if type(const) is types.CodeType:
                k = seen.get(const.co_name, 0)
                seen[const.co_name] = k + 1
                children.append((path + "/" + const.co_name + "#" + str(k), const))
        order.append(path)
        table[path] = CodeEntry(code, class_body, [p for p, _ in children])
        for child_path, child in reversed(children):
            stack.append((child_path, child))
    return order, table


def subtable(table, path, root="<module>"):
    """The entries of ``table`` at and below ``path``, their paths starting
    from ``root`` instead: how a function found inside a compiled module is
    matched with the function itself.

    Example::

        >>> _, table = collect(compile("def f():\\n    return lambda: 1", "<s>", "exec"))
        >>> sorted(subtable(table, "<module>/f#0"))
        ['<module>', '<module>/<lambda>#0']
    """
    out = {}
    size = len(path)
    for p, entry in table.items():
        if p == path or p.startswith(path + "/"):
            out[root + p[size:]] = entry
    return out


def _const_key(value):
    return value.co_name if type(value) is types.CodeType else canon_const(value)


def same_code(a, b):
    """A quick yes for two code objects the strict rule calls equal: the same
    header, bytes, names and constants (False says nothing: compare their
    instruction lists then)."""
    if a.co_code != b.co_code or a.co_names != b.co_names or a.co_varnames != b.co_varnames:
        return False
    if a.co_freevars != b.co_freevars or a.co_cellvars != b.co_cellvars:
        return False
    if getattr(a, "co_exceptiontable", None) != getattr(b, "co_exceptiontable", None):
        return False
    if header(a) != header(b) or len(a.co_consts) != len(b.co_consts):
        return False
    return all(_const_key(x) == _const_key(y) for x, y in zip(a.co_consts, b.co_consts))


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


def compare_tables(order, orig, cand, skip=()):
    """Per-object verdicts (the response's ``objects``) for two tables.

    ``cand`` is None when there is no compiled candidate at all. An object
    not equal is checked for equivalence when both entries hold their code.
    The paths in ``skip`` (what the decompiler's fallback wrote, which never
    compiles to the original's code) are not compared: neither equal nor
    equivalent, of kind ``fallback``.

    Example::

        >>> order, orig = collect(compile("def f(x):\\n    return 1 if x else 2", "<s>", "exec"))
        >>> cand = collect(compile("def f(x):\\n    return 2 if not x else 1", "<s>", "exec"))[1]
        >>> [(o["path"], o["equal"], o["equivalent"]) for o in compare_tables(order, orig, cand)]
        [('<module>', True, True), ('<module>/f#0', False, True)]
    """
    equal = {}
    equivalent = {}
    diffs = {}
    for path in order:
        mine = orig[path]
        other = cand.get(path) if cand is not None else None
        if other is None:
            equal[path] = equivalent[path] = False
            diffs[path] = (("no such code object in the candidate", "missing object")
                           if cand is not None else ("no compiled candidate", "no candidate"))
            continue
        if path in skip:
            equal[path] = equivalent[path] = False
            diffs[path] = ("written by the fallback", "fallback")
            continue
        if isinstance(mine, CodeEntry) and isinstance(other, CodeEntry) \
                and same_code(mine.code, other.code):
            equal[path] = equivalent[path] = True
            diffs[path] = (None, None)
            continue
        text, kind = first_difference(mine, other)
        equal[path] = text is None
        equivalent[path] = equal[path] or (
            isinstance(mine, CodeEntry) and isinstance(other, CodeEntry)
            and mine.header == other.header and equivalent_flow(mine.rows, other.rows))
        diffs[path] = (text, kind)
    deep = {}
    # Children come after their parent in `order`: walk backwards.
    for path in reversed(order):
        deep[path] = equal[path] and all(deep[c] for c in orig[path][3])
    out = []
    for path in order:
        text, kind = diffs[path]
        out.append({"path": path, "equal": equal[path], "deep": deep[path],
                    "equivalent": equivalent[path], "diff": text, "kind": kind})
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
