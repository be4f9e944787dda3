"""``match`` statements, rebuilt from the code their cases compile to.

The subject is computed once; each case then runs::

    [COPY 1]            every case but the last keeps the subject for the next one
    <pattern>           tests that jump to the case's failure blocks
    <stores>            the captured names
    [<guard>]           a condition that jumps to the next case
    [POP_TOP]           drops the kept subject
    <body>; JUMP end
    <failure blocks>    POP_TOP chains that drop what the pattern left on the stack

A trailing ``case _:`` has no code of its own: it is whatever the last case's
failure leads to before ``end``.

Patterns are read by running their code on a symbolic stack whose items are
:class:`_Slot` objects: the subject and the parts of it the pattern extracts
(sequence items, class attributes, mapping values, the ``**rest`` dict). A test
records what it checks on its slot; a store names a slot. The pattern is then
built from the slots, not from the order of the ops, because the optimiser
reorders stores and drops the swaps that moved captured values around. An
or-pattern copies its subject once per alternative; each alternative is read on
its own slot, and the stacks of the alternatives meet again at the or's end.

Example::

    >>> import ast
    >>> from depyf.decompiler.functions import CodeDecompiler
    >>> src = "match v:\\n    case [x, *_]: pass\\n    case {'k': 1}: pass\\n"
    >>> stmt = CodeDecompiler(compile(src, "<s>", "exec")).statements()[0]   # doctest: +SKIP
    >>> ast.unparse(stmt.cases[0].pattern)                                   # doctest: +SKIP
    '[x, *_]'
"""
from __future__ import annotations

import ast
from typing import List, Optional

from . import chains
from ..expressions import StackMachine
from ..failure import DecompileFailure
from .frames import BranchFrame
from ..values import Placeholder

_CONDITIONAL = frozenset({"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE",
                          "POP_JUMP_IF_NOT_NONE"})
_LOADS = frozenset({"LOAD_NAME", "LOAD_GLOBAL", "LOAD_FAST", "LOAD_DEREF", "LOAD_CLASSDEREF"})
_STORES = frozenset({"STORE_NAME", "STORE_GLOBAL", "STORE_FAST", "STORE_DEREF"})
_EXITS = frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE"})
#: how deep into the stack an op reaches (loads reach nothing)
_REACH = {"POP_TOP": 1, "MATCH_SEQUENCE": 1, "MATCH_MAPPING": 1, "GET_LEN": 1, "MATCH_CLASS": 3,
          "MATCH_KEYS": 2, "COPY_DICT_WITHOUT_KEYS": 2, "COMPARE_OP": 2, "BINARY_OP": 2,
          "BINARY_SUBSCR": 2, "UNPACK_SEQUENCE": 1, "UNPACK_EX": 1, "LOAD_ATTR": 1,
          "BUILD_MAP": 0, "DICT_UPDATE": 0, "DELETE_SUBSCR": 2, "LOAD_CONST": 0}


class NotAMatch(Exception):
    """The ops at the trigger are not the start of a match statement."""


class MatchSubject(Placeholder):
    """The subject a case keeps on the stack for the next case."""


class _Slot:
    """A value some pattern tests: the subject or a part of it."""

    def __init__(self, line):
        self.line = line
        self.children = {}
        #: kind -> data: "sequence", "len" (op, n), "mapping", "keys" [exprs],
        #: "class" (cls, npos, kwnames), "value" expr, "singleton" value
        self.tests = {}
        self.names: List[str] = []
        self.alternatives: Optional[list] = None
        #: (before, after) of an UNPACK_EX
        self.split = None

    def child(self, key) -> "_Slot":
        slot = self.children.get(key)
        if slot is None:
            slot = self.children[key] = _Slot(self.line)
        return slot

    def test(self, kind, data=True) -> None:
        if kind in self.tests and self.tests[kind] != data and kind != "value":
            raise DecompileFailure("two %s tests on one pattern" % kind)
        self.tests[kind] = data


class _Helper:
    """Stack items a pattern's code makes on the way (tests, lengths, results)."""

    def __init__(self, kind, slot=None, data=None):
        self.kind = kind
        self.slot = slot
        self.data = data


class _Join:
    """One stack position after an or-pattern: a value from each alternative."""

    def __init__(self, members):
        self.members = members


def match_statement(w, m: StackMachine, i: int, hi: int) -> Optional[int]:
    """A match statement starting at ``i`` (its subject on ``m``'s stack): append it
    to ``m`` and return where it ends; None when the ops are something else."""
    if not m.stack:
        return None
    reader = _Reader(w, m, hi)
    try:
        return reader.read(i)
    except NotAMatch:
        return None


class _Reader:
    def __init__(self, w, m, hi):
        self.w = w
        self.m = m
        self.ops = w.ops
        self.n = len(w.ops)
        self.hi = hi
        self.stored = False
        #: every place a failed test goes, for where each body ends
        self.targets = set()

    # -- the statement ---------------------------------------------------------------

    def read(self, i: int) -> int:
        m = self.m
        op = self.ops[i]
        preloaded = []
        if op.name == "MATCH_CLASS":
            # A lone case: the class and attribute names are already loaded.
            if len(m.stack) < 3:
                raise NotAMatch()
            preloaded = [m.value(v) for v in m.stack[-2:]]
            subject_node = m.stack[-3]
        else:
            subject_node = m.stack[-1]
        if isinstance(subject_node, Placeholder):
            raise NotAMatch()
        outer = list(m.stack[:len(m.stack) - 1 - len(preloaded)])
        cases = []
        p = i
        while True:
            case = self._case(p, outer, preloaded, first=not cases)
            preloaded = []
            cases.append(case)
            if not case["copied"]:
                break
            p = case["fail0"]
        subject = m.value(subject_node)
        del m.stack[len(outer):]
        ends = [c["end"] for c in cases if c["end"] is not None]
        fail = cases[-1]["fail0"]
        if fail is None:
            # The last case always matches: it runs to where the others end.
            fail = end = max(ends) if ends else self.hi
            cases[-1]["stop"] = min(end, self.hi)
        end = max(ends) if ends else fail
        if end < fail:
            raise DecompileFailure("match end before its last case")
        stop = min(end, self.hi)
        rest = None
        if not ends and fail < self.hi:
            # No case runs on past the statement (each returns or raises), so the
            # rest of the block runs only when nothing matched: a `case _:` (the
            # same code as statements after the match, and what a match means).
            rest = self.w.block(fail, self.hi, m.stack)
            if any(not getattr(s, "implicit", False) for s in rest):
                stop = self.hi
        nodes = []
        for c in cases:
            # A jump from inside a body to the end of the statement ends that body.
            with self.w.frames.push(BranchFrame(c["stop"], end)):
                body = self.w.block(c["body"], c["stop"], m.stack)
            if c.get("continue") is not None:
                body = [ast.Continue(lineno=c["continue"].line)]
            nodes.append(ast.match_case(pattern=c["pattern"], guard=c["guard"],
                                        body=body or [ast.Pass()]))
        if fail < stop:
            # A trailing `case _:` (or code that only the last failure reaches).
            body = rest if stop == self.hi and rest is not None else \
                self.w.block(fail, stop, m.stack)
            default = ast.MatchAs(pattern=None, name=None)
            default.lineno = self.ops[fail].line
            nodes.append(ast.match_case(pattern=default, guard=None, body=body or [ast.Pass()]))
        line = m.start_line if m.start_line is not None else self.ops[i].line
        m.start_line = None
        node = ast.Match(subject=subject, cases=nodes)
        node.lineno = line
        m.stmts.append(node)
        return stop

    def _case(self, p, outer, preloaded, first):
        """One case at ``p``: tried as a case that keeps the subject, then as the last."""
        if not preloaded and _is_copy(self.ops[p]):
            try:
                return self._read_case(p, outer, [], copied=True, first=first)
            except (NotAMatch, DecompileFailure):
                pass
        try:
            return self._read_case(p, outer, preloaded, copied=False, first=first)
        except (NotAMatch, DecompileFailure) as exc:
            if first:
                raise NotAMatch()
            raise DecompileFailure("match case not understood: %s" % (exc or type(exc).__name__))

    def _read_case(self, p, outer, preloaded, copied, first):
        ops = self.ops
        root = _Slot(ops[p].line)
        self.stored = False
        self.folded_continue = None
        if copied:
            stack = outer + [MatchSubject(), root]
            floor = len(outer) + 1
            start = p + 1
        else:
            stack = outer + [root] + preloaded
            floor = len(outer)
            start = p
        fails = []
        targets = set()
        q = self._run(start, stack, floor, fails, targets)
        if len(stack) != floor:
            raise NotAMatch()
        guard = None
        fail0 = self._fail0(fails, floor) if fails else None
        body = q
        if self.folded_continue is not None:
            if copied or q != self.folded_continue.index + 1:
                raise NotAMatch()
            return {"copied": False, "pattern": _build(root), "guard": None, "body": q,
                    "stop": q, "end": None, "fail0": fail0,
                    "continue": self.folded_continue}
        cond = self._guard(q, outer, fail0, copied, root.line)
        if cond is not None:
            guard, body, target = cond
            targets.add(target)
            fail0 = target if fail0 is None else fail0
        if copied:
            if body >= self.n or ops[body].name != "POP_TOP":
                raise NotAMatch()
            body += 1
        if fail0 is None and first:
            raise NotAMatch()       # nothing tested: plain assignments
        targets |= {t for t, _ in fails}
        later = [t for t in targets if t >= body]
        if fail0 is None or (not later and not copied and fail0 < body):
            # An irrefutable last case, or one whose failure leads to a copy of the
            # code after the statement: its body runs to where the others end.
            return {"copied": False, "pattern": _build(root), "guard": guard, "body": body,
                    "stop": None, "end": None, "fail0": None}
        if not later:
            raise NotAMatch()
        body_end = min(later)
        stop = body_end
        end = None
        last = ops[body_end - 1] if body_end - 1 >= body else None
        if last is not None and last.name == "JUMP" and last.target.index > body_end - 1 \
                and not self.w.is_loop_jump(last):
            end = last.target.index
            stop = body_end - 1
        pattern = _build(root)
        return {"copied": copied, "pattern": pattern, "guard": guard, "body": body,
                "stop": stop, "end": end, "fail0": fail0}

    def _guard(self, q, outer, fail0, copied, line):
        """``case P if g:``: (g, where the body starts, where g jumps when false), or None."""
        ops = self.ops
        if q >= self.n or (copied and ops[q].name == "POP_TOP"):
            return None
        base = list(outer) + ([MatchSubject()] if copied else [])
        sub = StackMachine(self.w.ctx, base)
        j = q
        try:
            while j < self.hi and ops[j].name not in _CONDITIONAL:
                if ops[j].target is not None or ops[j].name in _EXITS:
                    return None
                sub.step(ops[j])
                if sub.stmts:
                    return None
                j += 1
            if j >= self.hi or len(sub.stack) != len(base) + 1:
                return None
            test, after, target, _ = chains.read_condition(self.w, sub, j, self.hi)
        except DecompileFailure:
            return None
        if fail0 is not None and target != fail0 and not self._same_exit(target, fail0):
            return None
        if not copied and ops[q].line != line:
            return None       # an `if` at the top of the body, not a guard
        return test, after, target

    # -- running pattern code ----------------------------------------------------------

    def _run(self, p, stack, floor, fails, targets):
        """Run pattern code from ``p`` until the stack is back at ``floor``, or before
        a JUMP, or before an op that would reach below ``floor``."""
        ops = self.ops
        while p < self.n:
            if len(stack) <= floor:
                return p
            op = ops[p]
            if op.name == "JUMP":
                return p
            if _reach(op) > len(stack) - floor:
                return p
            if _is_copy(op) and isinstance(stack[-1], _Slot):
                end = self._or(p, stack, fails, targets)
                if end is not None:
                    p = end
                    continue
            if op.name == "POP_JUMP_IF_TRUE" and self._continues(op):
                # `case v: continue` as the last case: the optimiser jumps to the
                # next iteration when the test succeeds and falls into the failure.
                self._branch(op, stack, "POP_JUMP_IF_FALSE")
                fails.append((p + 1, len(stack)))
                self.folded_continue = op
            elif op.name in _CONDITIONAL:
                if self.stored:
                    raise NotAMatch()      # a store comes after every test of a pattern
                self._branch(op, stack)
                fails.append((op.target.index, len(stack)))
            else:
                self._step(op, stack)
            p += 1
        raise NotAMatch()

    def _fail0(self, fails, floor):
        """Where the failure blocks of jumps ``fails`` (target, depth) lead once they
        dropped what sits above ``floor``."""
        found = []
        for target, depth in fails:
            pops = depth - floor
            if pops < 0:
                raise NotAMatch()
            t = target
            for _ in range(pops):
                if t >= self.n or self.ops[t].name != "POP_TOP":
                    raise NotAMatch()
                t += 1
            found.append(t)
        first = max(found)
        for t in found:
            if t != first and not self._same_exit(t, first):
                raise NotAMatch()
        return first

    def _same_exit(self, a, b) -> bool:
        """Two copies of one small block that ends the function (3.10+ copies them)."""
        k = 0
        while a + k < self.n and b + k < self.n and k < 8:
            x, y = self.ops[a + k], self.ops[b + k]
            if x.name != y.name or x.arg != y.arg or x.target is not None:
                return False
            if x.name in _EXITS:
                return True
            k += 1
        return False

    def _or(self, p, stack, fails, targets):
        """An or-pattern at ``p`` (the first alternative's COPY): its end, or None."""
        ops = self.ops
        d = len(stack)
        subject = stack[-1]
        alts = []
        jump_ends = []
        tails = []
        inner = set()
        q = p
        outer_fail = None
        saved = self.stored
        while True:
            if q >= self.n or not _is_copy(ops[q]):
                return None
            alt = _Slot(ops[q].line)
            alt_stack = stack + [alt]
            alt_fails = []
            try:
                r = self._run(q + 1, alt_stack, d, alt_fails, inner)
            except (NotAMatch, DecompileFailure):
                self.stored = saved
                return None
            if self.stored or len(alt_stack) < d or alt_stack[:d] != stack[:d] \
                    or alt_stack[d - 1] is not subject:
                self.stored = saved
                return None
            if ops[r].name == "JUMP" and ops[r].target.index > r:
                jump_ends.append(ops[r].target.index)
                after = r + 1
            else:
                after = self._tail_end(r)
                if after is None:
                    return None
                tails.append(r)
            alts.append((alt, alt_stack))
            inner |= {t for t, _ in alt_fails}
            if not alt_fails:
                q = after
                break            # irrefutable: the last alternative
            try:
                nxt = self._fail0(alt_fails, d)
            except NotAMatch:
                return None
            if nxt < after:
                return None
            q = nxt
            if ops[q].name == "POP_TOP":
                # No alternative matched: drop the subject and fail.
                if q + 1 < self.n and ops[q + 1].name == "JUMP":
                    outer_fail = (ops[q + 1].target.index, d - 1)
                    q += 2
                else:
                    outer_fail = (q + 1, d - 1)
                    q += 1
                break
        if len(alts) < 2:
            return None
        if len(tails) > 1 and any(not self._same_exit(t, tails[-1]) for t in tails):
            return None
        depth = len(alts[0][1])
        if any(len(s) != depth for _, s in alts):
            return None
        merged = list(stack)
        for k in range(d, depth):
            members = [s[k] for _, s in alts]
            merged.append(members[0] if all(x is members[0] for x in members) else _Join(members))
        subject.alternatives = [a for a, _ in alts]
        stack[:] = merged
        if outer_fail is not None:
            fails.append(outer_fail)
        targets |= inner
        if jump_ends:
            if any(e != jump_ends[0] for e in jump_ends):
                return None
            return jump_ends[0]
        return tails[-1]

    def _tail_end(self, r):
        """End (exclusive) of a short block from ``r`` that leaves the function."""
        k = r
        while k < self.n and k - r < 8:
            op = self.ops[k]
            if op.target is not None:
                return None
            if op.name in _EXITS:
                return k + 1
            k += 1
        return None

    # -- one op on the symbolic stack -----------------------------------------------------

    def _continues(self, op) -> bool:
        loops = self.w.frames.loops
        return bool(loops) and op.target.index in loops[-1].continues

    def _branch(self, op, stack, name=None):
        top = stack.pop()
        name = name or op.name
        if isinstance(top, _Helper) and top.kind == "test" and name == "POP_JUMP_IF_FALSE":
            slot, kind, data = top.data
            slot.test(kind, data)
        elif isinstance(top, _Helper) and top.kind == "result" and name == "POP_JUMP_IF_NONE":
            top.slot.test(*top.data)
        elif isinstance(top, _Slot) and name == "POP_JUMP_IF_NOT_NONE":
            top.test("singleton", None)
        else:
            raise NotAMatch()

    def _step(self, op, stack):
        name = op.name
        arg = op.arg
        if name == "POP_TOP":
            stack.pop()
        elif name == "COPY":
            stack.append(stack[-arg])
        elif name == "SWAP":
            stack[-1], stack[-arg] = stack[-arg], stack[-1]
        elif name in ("MATCH_SEQUENCE", "MATCH_MAPPING"):
            slot = _slot(stack[-1])
            stack.append(_Helper("test", data=(slot, name[6:].lower(), True)))
        elif name == "GET_LEN":
            stack.append(_Helper("len", _slot(stack[-1])))
        elif name == "LOAD_CONST":
            stack.append(ast.Constant(value=arg))
        elif name in _LOADS:
            stack.append(ast.Name(id=arg, ctx=ast.Load()))
        elif name == "LOAD_ATTR":
            value = stack.pop()
            if not isinstance(value, (ast.Name, ast.Attribute)):
                raise NotAMatch()
            stack.append(ast.Attribute(value=value, attr=arg, ctx=ast.Load()))
        elif name == "BUILD_TUPLE":
            items = stack[len(stack) - arg:] if arg else []
            del stack[len(stack) - arg:]
            if not all(isinstance(x, ast.expr) for x in items):
                raise NotAMatch()
            stack.append(ast.Tuple(elts=items, ctx=ast.Load()))
        elif name == "COMPARE_OP":
            self._compare(arg, stack)
        elif name == "BINARY_OP" and arg == "-":
            k = stack.pop()
            length = stack.pop()
            if not (isinstance(length, _Helper) and length.kind == "len"
                    and isinstance(k, ast.Constant)):
                raise NotAMatch()
            stack.append(_Helper("from_end", length.slot, k.value))
        elif name == "BINARY_SUBSCR":
            self._subscr(stack)
        else:
            self._step_pattern(op, stack)

    def _step_pattern(self, op, stack):
        """The ops of class, mapping and capture patterns (:meth:`_step` does the
        stack's shuffles, the loads and the tests of a sequence's length)."""
        name = op.name
        arg = op.arg
        if name == "MATCH_CLASS":
            names = stack.pop()
            cls = stack.pop()
            slot = _slot(stack.pop())
            if not (isinstance(names, ast.Constant) and isinstance(names.value, tuple)) \
                    or isinstance(cls, (_Slot, _Helper, _Join)):
                raise NotAMatch()
            stack.append(_Helper("result", slot, ("class", (cls, arg, names.value))))
        elif name == "MATCH_KEYS":
            keys = stack[-1]
            slot = _slot(stack[-2])
            if isinstance(keys, ast.Constant) and isinstance(keys.value, tuple):
                exprs = [ast.Constant(value=k) for k in keys.value]
            elif isinstance(keys, ast.Tuple):
                exprs = list(keys.elts)
            else:
                raise NotAMatch()
            stack.append(_Helper("result", slot, ("keys", exprs)))
        elif name == "COPY_DICT_WITHOUT_KEYS":
            stack.pop()
            stack.append(_slot(stack[-1]).child(("rest",)))
        elif name == "BUILD_MAP" and arg == 0:
            stack.append(_Helper("empty_dict"))
        elif name == "DICT_UPDATE":
            # dict(subject) for `**rest`: the remaining keys are deleted next.
            source = _slot(stack.pop())
            target = stack[-arg]
            if not (isinstance(target, _Helper) and target.kind == "empty_dict"):
                raise NotAMatch()
            stack[-arg] = source.child(("rest",))
        elif name == "DELETE_SUBSCR":
            key = stack.pop()
            rest = stack.pop()
            if not isinstance(key, (_Helper, ast.expr)) or not isinstance(rest, _Slot):
                raise NotAMatch()
        elif name == "UNPACK_SEQUENCE":
            self._unpack(stack.pop(), arg, None, stack)
        elif name == "UNPACK_EX":
            self._unpack(stack.pop(), (arg & 0xFF) + (arg >> 8), (arg & 0xFF, arg >> 8), stack)
        elif name in _STORES:
            value = stack.pop()
            for slot in (value.members if isinstance(value, _Join) else [value]):
                _slot(slot).names.append(arg)
            self.stored = True
        else:
            raise NotAMatch()

    def _compare(self, arg, stack):
        right = stack.pop()
        left = stack.pop()
        if isinstance(left, _Helper) and left.kind == "len" and isinstance(right, ast.Constant) \
                and arg in ("==", ">="):
            stack.append(_Helper("test", data=(left.slot, "len", (arg, right.value))))
        elif isinstance(left, _Slot) and isinstance(right, ast.expr) and arg == "==":
            stack.append(_Helper("test", data=(left, "value", right)))
        elif isinstance(left, _Slot) and isinstance(right, ast.Constant) and arg == "is":
            stack.append(_Helper("test", data=(left, "singleton", right.value)))
        else:
            raise NotAMatch()

    def _subscr(self, stack):
        index = stack.pop()
        owner = stack.pop()
        if isinstance(owner, _Helper) and owner.kind == "result" and isinstance(index, ast.Constant):
            stack.append(owner.slot.child(("part", index.value)))
        elif isinstance(owner, _Slot) and isinstance(index, ast.Constant):
            stack.append(owner.child(("item", index.value)))
        elif isinstance(owner, _Slot) and isinstance(index, _Helper) \
                and index.kind == "from_end" and index.slot is owner:
            stack.append(owner.child(("end", index.data)))
        else:
            raise NotAMatch()

    def _unpack(self, value, n, split, stack):
        if isinstance(value, _Helper) and value.kind == "result":
            keys = [("part", k) for k in range(n)]
            owner = value.slot
        elif isinstance(value, _Slot) and split is None:
            keys = [("item", k) for k in range(n)]
            owner = value
        elif isinstance(value, _Slot):
            before, after = split
            owner = value
            owner.split = split
            keys = [("item", k) for k in range(before)] + [("star",)] + \
                [("end", after - k) for k in range(after)]
            n = len(keys)
        elif isinstance(value, ast.expr):
            # The keys of a `**rest` mapping, to delete from the copy one by one.
            for _ in range(n):
                stack.append(_Helper("key"))
            return
        else:
            raise NotAMatch()
        for key in reversed(keys):
            stack.append(owner.child(key))


# -- helpers --------------------------------------------------------------------------------

def _is_copy(op) -> bool:
    return op.name == "COPY" and op.arg == 1


def _reach(op) -> int:
    name = op.name
    if name in ("COPY", "SWAP"):
        return op.arg
    if name in ("BUILD_TUPLE",):
        return op.arg
    if name in _REACH:
        return _REACH[name]
    if name in _LOADS:
        return 0
    if name in _CONDITIONAL or name in _STORES:
        return 1
    if name == "DICT_UPDATE":
        return op.arg + 1
    return 1


def _slot(value) -> _Slot:
    if not isinstance(value, _Slot):
        raise NotAMatch()
    return value


# -- building the pattern ---------------------------------------------------------------------

def _build(slot: _Slot) -> ast.pattern:
    tests = slot.tests
    core = None
    if slot.alternatives:
        core = ast.MatchOr(patterns=[_build(a) for a in slot.alternatives])
    elif "class" in tests:
        cls, npos, kwnames = tests["class"]
        core = ast.MatchClass(cls=cls, patterns=[_part(slot, k) for k in range(npos)],
                              kwd_attrs=list(kwnames),
                              kwd_patterns=[_part(slot, npos + k) for k in range(len(kwnames))])
    elif "mapping" in tests:
        keys = tests.get("keys", [])
        rest = slot.children.get(("rest",))
        if rest is not None and (rest.tests or len(rest.names) != 1):
            raise DecompileFailure("**rest of a mapping pattern is not a name")
        core = ast.MatchMapping(keys=keys, patterns=[_part(slot, k) for k in range(len(keys))],
                                rest=rest.names[0] if rest is not None else None)
    elif "sequence" in tests:
        core = ast.MatchSequence(patterns=_sequence(slot))
    elif "value" in tests:
        core = ast.MatchValue(value=tests["value"])
    elif "singleton" in tests:
        core = ast.MatchSingleton(value=tests["singleton"])
    names = list(slot.names)
    if core is None:
        core = ast.MatchAs(pattern=None, name=names.pop(0) if names else None)
    for name in names:
        core = ast.MatchAs(pattern=core, name=name)
    _set_line(core, slot.line)
    return core


def _part(slot, k):
    child = slot.children.get(("part", k))
    return _build(child) if child is not None else _wildcard(slot.line)


def _wildcard(line):
    node = ast.MatchAs(pattern=None, name=None)
    node.lineno = line
    return node


def _sequence(slot) -> List[ast.pattern]:
    length = slot.tests.get("len")
    children = slot.children
    items = {k[1] for k in children if k[0] == "item"}
    ends = {k[1] for k in children if k[0] == "end"}
    if length is not None and length[0] == "==":
        size = length[1]
        if ends or ("star",) in children or any(i >= size for i in items):
            raise DecompileFailure("sequence pattern parts do not fit its length")
        return [_item(slot, ("item", k)) for k in range(size)]
    fixed = length[1] if length is not None else 0
    if slot.split is not None:
        before, after = slot.split
    elif not items and not ends:
        before, after = fixed, 0
    else:
        before = max(items) + 1 if items else 0
        after = fixed - before
    if before + after != fixed or (ends and max(ends) > after):
        raise DecompileFailure("sequence pattern parts do not fit its length")
    star = children.get(("star",))
    if star is not None and (star.tests or len(star.names) > 1 or star.alternatives):
        raise DecompileFailure("starred sequence pattern is not a name")
    star_node = ast.MatchStar(name=star.names[0] if star is not None and star.names else None)
    star_node.lineno = slot.line
    return [_item(slot, ("item", k)) for k in range(before)] + [star_node] + \
        [_item(slot, ("end", after - k)) for k in range(after)]


def _item(slot, key):
    child = slot.children.get(key)
    return _build(child) if child is not None else _wildcard(slot.line)


def _set_line(node, line):
    node.lineno = line
