"""Code objects to statements: modules, functions, lambdas, classes and comprehensions.

:class:`CodeDecompiler` decompiles one code object (normalise, walk, tidy up)
and supplies the expression layer with the ``nested`` callback that turns a
MAKE_FUNCTION value into a ``def``, ``lambda``, ``class`` or comprehension by
decompiling the nested code object in turn.
"""
from __future__ import annotations

import ast
from typing import List, Optional

from ..bytecode.code import parameters
from ..bytecode.normalize import normalize
from ..bytecode.versions import get_table
from .expressions import Context, annotation_expr
from .failure import DecompileFailure
from .structure.walker import Walker
from .structure.comprehensions import build_comprehension
from .structure.clauses import else_before_dead_tail
from .objects import unbound_cells
from .closing_returns import without_returns
from .dropped import check_names_kept
from .deferred_annotations import annotate_entries, fold_deferred_annotations
from .astcompat import ParamSpec, TypeAlias, TypeVar, TypeVarTuple, make, with_type_params
from .values import ClassValue, FunctionValue, TypeAliasValue, TypeParamValue

_RECOVERABLE = (DecompileFailure, IndexError, KeyError, AttributeError, TypeError, ValueError,
                AssertionError, RecursionError)

CO_GENERATOR = 0x20
CO_COROUTINE = 0x80
CO_ASYNC_GENERATOR = 0x200

#: names every class body sets up before the user's code (and 3.13 after it)
_CLASS_PROLOGUE = {"__module__", "__qualname__", "__firstlineno__", "__type_params__"}
_CLASS_EPILOGUE = {"__static_attributes__", "__classcell__", "__classdictcell__"}
_PREAMBLE_NAMES = _CLASS_PROLOGUE | {"__doc__"}
_CLASS_BOILERPLATE = _CLASS_PROLOGUE | _CLASS_EPILOGUE


class Refused(DecompileFailure):
    """The structured form of a code object is not wanted (validation found
    that it compiles to other bytecode): the fallback writes the object."""


class CodeDecompiler:
    """Decompiles one code object (a CodeRecord) and, through ``nested``, the
    code objects it makes. ``forced`` maps the records whose structured form
    is refused (:class:`Refused`, with the reason) to that reason; nested
    decompilers share it.

    >>> from depyf.bytecode import as_record
    >>> record = as_record(compile("x = 1", "<s>", "exec"))
    >>> CodeDecompiler(record, "module", forced={record: "asked"}).statements()
    Traceback (most recent call last):
    ...
    depyf.decompiler.functions.Refused: asked
    """

    def __init__(self, code, kind: str = "function", on_failure=None,
                 class_name: Optional[str] = None, forced: Optional[dict] = None):
        self.code = code
        self.kind = kind
        self.on_failure = on_failure
        #: the innermost enclosing class (its own name for a class body)
        self.class_name = class_name
        #: values of the compiler's own names (PEP 695 set-up code)
        self.hidden = {}
        self.forced = forced

    def statements(self) -> List[ast.stmt]:
        func = self.func = normalize(self.code)
        ctx = Context(self.code, self.nested, self.kind, self.class_name)
        ctx.hidden = self.hidden
        try:
            if self.forced and self.code in self.forced:
                raise Refused(self.forced[self.code])
            walker = Walker(func, ctx)
            stmts = walker.body()
            if self.kind in ("module", "class"):
                stmts = fold_deferred_annotations(
                    stmts, self.annotate_entries,
                    _CLASS_EPILOGUE if self.kind == "class" else frozenset())
            if walker.dead_return_tail():
                stmts = else_before_dead_tail(stmts)
            # (straight-line code has nothing to lose; a generic's statement
            # returns values, not nodes)
            if not walker.straight_line and self.kind != "generic":
                check_names_kept(self.code, func.ops, walker.reachable, stmts, self.hidden)
            if self.kind in ("module", "class"):
                # Neither can hold a return statement: every one is the compiler's.
                stmts = without_returns(stmts, _CLASS_EPILOGUE if self.kind == "class" else ())
        except _RECOVERABLE as e:
            # Anything unexpected in structuring one code object sends just that
            # object to the fallback; valid bytecode never makes decompile() raise.
            if self.on_failure is None:
                raise
            return self.declarations() + self.on_failure(self.code, e) + self._kind_keepers()
        if self.kind not in ("module", "class", "lambda", "generic"):
            # (a lambda's and a generic's return is the point)
            if walker.copied_returns:
                # (only a RETURN_VALUE "copied" makes a return to fold)
                stmts = _fold_copied_returns(stmts)
            stmts = _bare_returns(_drop_implicit_return(stmts))
            stmts = stmts + unbound_cells(self.code, stmts)
        if self.kind == "module":
            stmts = _module_docstring(stmts)
        return _declare(self.declarations(), stmts)

    def _kind_keepers(self) -> List[ast.stmt]:
        """Unreached statements after a fallback body that keep what the enclosing
        code depends on: the free variables it closes over (so the parent still
        makes those cells, ``__class__`` included) and, for a generator, a yield."""
        out = []
        free = [v for v in self.code.freevars if v.isidentifier()]
        if self.kind != "module" and free:
            names = [ast.Name(id=v, ctx=ast.Load()) for v in free]
            out.append(ast.Expr(value=ast.Tuple(elts=names, ctx=ast.Load())))
        if self.kind == "function" and self.code.flags & (CO_GENERATOR | CO_ASYNC_GENERATOR):
            out.append(ast.Expr(value=ast.Yield(value=None)))
        return out

    def declarations(self) -> List[ast.stmt]:
        """``global``/``nonlocal`` statements the bytecode implies."""
        func = getattr(self, "func", None) or normalize(self.code)
        globals_, nonlocals = [], []
        unused = self._unused_free_variables(func)
        if not unused and func.decoded_names is not None and func.decoded_names.isdisjoint(_DECLARING):
            return []       # (no pass makes these: no scan of the ops)
        for op in func.ops:
            if op.name not in _DECLARING:
                continue
            if op.name in ("STORE_GLOBAL", "DELETE_GLOBAL") and op.arg not in globals_:
                globals_.append(op.arg)
            elif self.kind != "module" and op.name in ("STORE_DEREF", "DELETE_DEREF") \
                    and op.arg in self.code.freevars \
                    and op.arg not in nonlocals and op.arg != "__class__":
                nonlocals.append(op.arg)
        nonlocals += [v for v in unused if v not in nonlocals]
        out = []
        if globals_:
            out.append(ast.Global(names=globals_))
        if nonlocals:
            out.append(ast.Nonlocal(names=nonlocals))
        return out

    def _unused_free_variables(self, func) -> List[str]:
        """A function's free variables no op of it uses: code a compiler made
        has none, Dynamo's code for a closure keeps the closure's though it
        may use none of them (its graph does the work). ``nonlocal`` keeps
        them free and runs nothing."""
        free = self.code.freevars
        if self.kind != "function" or not free:
            return []
        used = {op.arg for op in func.ops if "DEREF" in op.name or "CLOSURE" in op.name}
        # (the compiler's own cells, `__class__`, 3.12+'s `__classdict__`, are
        # no names a nonlocal may declare)
        return [v for v in free if v not in used and v.isidentifier()
                and not (v.startswith("__") and v.endswith("__"))]

    # -- nested code objects ---------------------------------------------------------------

    def child(self, code, kind, class_name=None):
        return CodeDecompiler(code, kind, self.on_failure, class_name or self.class_name,
                              self.forced)

    def nested(self, value, how):
        if how == "lambda":
            return self.lambda_expr(value)
        if isinstance(how, tuple) and how[0] == "def":
            return self.function_def(value, how[1])
        if isinstance(how, tuple) and how[0] == "class":
            return self.class_def(value, how[1])
        if isinstance(how, tuple) and how[0] == "comprehension":
            return self.comprehension(value, how[1])
        if isinstance(how, tuple) and how[0] == "generic":
            return self.generic(value, how[1])
        if how == "alias":
            return self.type_alias(value)
        if how == "annotate":
            return self.annotate(value)
        raise DecompileFailure("unknown nested form %r" % (how,))

    def annotate_entries(self, value: FunctionValue):
        """A body's ``__annotate__`` function's annotations (see
        :mod:`.deferred_annotations`)."""
        return annotate_entries(self._annotate_body(value))

    def annotate(self, value: FunctionValue) -> ast.Dict:
        """3.14+ (PEP 649): the annotations dict a function's ``__annotate__``
        returns, its values as written (read lazily, in that function's scope:
        ``if format > 2: raise NotImplementedError; return {'x': int}``)."""
        stmts = self._annotate_body(value)
        if len(stmts) != 1 or not isinstance(stmts[0], ast.Return) \
                or not isinstance(stmts[0].value, ast.Dict):
            raise DecompileFailure("__annotate__ does not return its annotations")
        return stmts[0].value

    def _annotate_body(self, value: FunctionValue) -> List[ast.stmt]:
        """An ``__annotate__`` function's statements, its format check gone."""
        child = CodeDecompiler(value.code, "function", None, self.class_name, self.forced)
        return without_format_check(child.statements())

    # -- PEP 695 ----------------------------------------------------------------------------

    def generic(self, value: FunctionValue, args):
        """``<generic parameters of X>(defaults...)``: the code that makes the type
        parameters and then the function, class or type alias X that uses them.
        Returns that value with its ``type_params``."""
        code = value.code
        child = CodeDecompiler(code, "generic", None, self.class_name, self.forced)
        child.hidden = dict(zip(code.varnames[:code.argcount], args))
        stmts = child.statements()
        if not stmts or not isinstance(stmts[-1], ast.Return) or any(
                not isinstance(s, ast.Return) for s in stmts):
            raise DecompileFailure("generic set-up code not understood")
        inner = stmts[-1].value
        if isinstance(inner, ClassValue):
            params = child.hidden.get(".type_params")
            inner.type_params = list(params.elts) if isinstance(params, ast.Tuple) else []
        elif not isinstance(inner, (FunctionValue, TypeAliasValue)):
            raise DecompileFailure("generic set-up code returns %s" % type(inner).__name__)
        return inner

    def type_params(self, params):
        out = []
        for tp in params or ():
            if not isinstance(tp, TypeParamValue):
                raise DecompileFailure("type parameter not understood")
            cls = {"TypeVar": TypeVar, "ParamSpec": ParamSpec, "TypeVarTuple": TypeVarTuple}[tp.kind]
            fields = {"name": tp.name}
            if tp.bound is not None:
                fields["bound"] = self.lazy_expression(tp.bound)
            if tp.default is not None:
                fields["default_value"] = self.lazy_expression(tp.default)
            out.append(make(cls, **fields))
        return out

    def lazy_expression(self, value: FunctionValue) -> ast.expr:
        """The expression a lazily evaluated bound, default or alias value returns."""
        child = CodeDecompiler(value.code, "lambda", None, self.class_name, self.forced)
        return _lambda_body(without_format_check(child.statements()))

    def type_alias(self, value: TypeAliasValue) -> ast.stmt:
        return make(TypeAlias, name=ast.Name(id=value.name, ctx=ast.Store()),
                    type_params=self.type_params(value.type_params),
                    value=self.lazy_expression(value.value))

    def lambda_expr(self, value: FunctionValue) -> ast.Lambda:
        if value.code.name != "<lambda>":
            raise DecompileFailure("function %s used as a value" % value.code.name)
        child = CodeDecompiler(value.code, "lambda", None, self.class_name, self.forced)
        try:
            expr = _lambda_body(child.statements())
        except DecompileFailure as e:
            if self.on_failure is None:
                raise
            # Keep the failure to this lambda, as a failing def keeps it to its body.
            expr = _raising_expression("depyf could not decompile %s: %s"
                                       % (value.code.qualname, e))
        return ast.Lambda(args=arguments(value), body=expr)

    def function_def(self, value: FunctionValue, decorators) -> ast.stmt:
        code = value.code
        body = self.child(code, "function").statements()
        doc = _docstring(code)
        if doc is not None:
            body.insert(0, ast.Expr(value=ast.Constant(value=doc)))
        returns = _annotation(value, "return")
        cls = ast.AsyncFunctionDef if code.flags & CO_COROUTINE or \
            code.flags & CO_ASYNC_GENERATOR else ast.FunctionDef
        node = cls(name=code.name, args=arguments(value), body=body or [ast.Pass()],
                   decorator_list=list(decorators), returns=returns, type_comment=None)
        node.lineno = code.firstlineno
        return with_type_params(node, self.type_params(getattr(value, "type_params", None)))

    def class_def(self, value: ClassValue, decorators) -> ast.ClassDef:
        code = value.function.code
        body = self.child(code, "class", value.name).statements()
        body = _strip_class_boilerplate(body)
        node = ast.ClassDef(name=value.name, bases=value.bases, keywords=value.keywords,
                            body=body or [ast.Pass()], decorator_list=list(decorators))
        node.lineno = code.firstlineno
        return with_type_params(node, self.type_params(getattr(value, "type_params", None)))

    def comprehension(self, value: FunctionValue, iterable) -> ast.expr:
        code = value.code
        body = self.child(code, "comprehension").statements()
        node = build_comprehension(code.name, body, iterable)
        # Calling an asynchronous list/set/dict comprehension gives a coroutine
        # the enclosing code awaits; the source has no `await` for it.
        node.awaited = bool(code.flags & CO_COROUTINE)
        return node


def _lambda_body(body) -> ast.expr:
    """The expression a lambda's statements return: ``return e``; ``yield`` (whose
    value the lambda returns); ``if c: return a`` / ``else: return b`` (or the
    return after the if) as ``a if c else b``."""
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        return body[0].value
    if len(body) == 1 and isinstance(body[0], ast.Expr) and \
            isinstance(body[0].value, (ast.Yield, ast.YieldFrom, ast.Await)):
        return body[0].value
    if body and isinstance(body[0], ast.If):
        first = body[0]
        rest = first.orelse if first.orelse else body[1:]
        if first.orelse and len(body) != 1:
            raise DecompileFailure("lambda body is not one expression")
        return ast.IfExp(test=first.test, body=_lambda_body(first.body),
                         orelse=_lambda_body(rest))
    raise DecompileFailure("lambda body is not one expression")


def _raising_expression(message: str) -> ast.expr:
    """An expression that raises NotImplementedError(message) when evaluated."""
    gen = ast.GeneratorExp(
        elt=ast.Name(id="_", ctx=ast.Load()),
        generators=[ast.comprehension(target=ast.Name(id="_", ctx=ast.Store()),
                                      iter=ast.Tuple(elts=[], ctx=ast.Load()), ifs=[],
                                      is_async=0)])
    exc = ast.Call(func=ast.Name(id="NotImplementedError", ctx=ast.Load()),
                   args=[ast.Constant(value=message)], keywords=[])
    return ast.Call(func=ast.Attribute(value=gen, attr="throw", ctx=ast.Load()),
                    args=[exc], keywords=[])


# -- pieces of a function signature ------------------------------------------------------------

def arguments(value: FunctionValue) -> ast.arguments:
    code = value.code
    found = parameters(code.varnames, code.argcount, code.posonlyargcount, code.kwonlyargcount,
                       code.flags)
    kw_defaults_map = _mapping(value.kwdefaults)
    return ast.arguments(
        posonlyargs=[_arg(n, value) for n in found.posonly],
        args=[_arg(n, value) for n in found.regular],
        vararg=_arg(found.vararg, value) if found.vararg is not None else None,
        kwonlyargs=[_arg(n, value) for n in found.kwonly],
        kw_defaults=[kw_defaults_map.get(n) for n in found.kwonly],
        kwarg=_arg(found.kwarg, value) if found.kwarg is not None else None,
        defaults=_sequence(value.defaults),
    )


def _arg(name, value):
    annotation = _annotation(value, name) if value.annotations is not None else None
    return ast.arg(name, annotation, None)


def _sequence(node) -> List[ast.expr]:
    if node is None:
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, tuple):
        return [ast.Constant(value=v) for v in node.value]
    if isinstance(node, ast.Tuple):
        return list(node.elts)
    raise DecompileFailure("defaults are not a tuple")


def _mapping(node) -> dict:
    if node is None:
        return {}
    if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) for k in node.keys):
        return {k.value: v for k, v in zip(node.keys, node.values)}
    raise DecompileFailure("keyword defaults are not a dict")


def _annotation(value: FunctionValue, name: str) -> Optional[ast.expr]:
    ann = value.annotations
    if ann is None:
        return None
    if isinstance(ann, ast.Dict):
        pairs = zip(ann.keys, ann.values)
    elif isinstance(ann, ast.Tuple):
        pairs = zip(ann.elts[0::2], ann.elts[1::2])
    elif isinstance(ann, ast.Constant) and isinstance(ann.value, tuple):
        items = [ast.Constant(value=v) for v in ann.value]
        pairs = zip(items[0::2], items[1::2])
    else:
        raise DecompileFailure("annotations are not a dict or tuple")
    for key, val in pairs:
        if isinstance(key, ast.Constant) and key.value == name:
            return annotation_expr(value.code, val)
    return None


def without_format_check(stmts: List[ast.stmt]) -> List[ast.stmt]:
    """3.14+'s lazily evaluated code (``__annotate__``, a type alias's or a
    type parameter's value) starts by refusing formats it cannot give
    (``if format > 2: raise NotImplementedError``): no source wrote that.

    >>> len(without_format_check(ast.parse("if format > 2:\\n    raise NotImplementedError\\nx").body))
    1
    """
    if stmts and isinstance(stmts[0], ast.If) and not stmts[0].orelse \
            and len(stmts[0].body) == 1 and isinstance(stmts[0].body[0], ast.Raise) \
            and isinstance(stmts[0].body[0].exc, ast.Name) \
            and stmts[0].body[0].exc.id == "NotImplementedError" \
            and isinstance(stmts[0].test, ast.Compare) and isinstance(stmts[0].test.left, ast.Name) \
            and isinstance(stmts[0].test.ops[0], ast.Gt):
        return stmts[1:]
    return stmts


def _docstring(code) -> Optional[str]:
    """The docstring: the first constant if a string; from 3.14, which has a
    flag for it, only where the flag says so (a t-string's strings come first
    otherwise)."""
    if not (code.consts and isinstance(code.consts[0], str)):
        return None
    bit = get_table(code.version).flag_bit("HAS_DOCSTRING")
    return code.consts[0] if bit is None or code.flags & bit else None


def _drop_implicit_return(stmts, top=True):
    """Remove the compiler's closing ``return None`` (any ``return None`` ending the
    body compiles the same) and its copies at the ends of the last statement's branches."""
    if not stmts:
        return stmts
    last = stmts[-1]
    if isinstance(last, ast.Return) and _is_none(last.value) and getattr(last, "implicit", top):
        # Falling off the statement before reaches the same return: the copies
        # (marked implicit) ending its branches go too.
        return _drop_implicit_return(stmts[:-1], False)
    if isinstance(last, ast.If):
        last.body = _drop_implicit_return(last.body, False) or [ast.Pass()]
        last.orelse = _drop_implicit_return(last.orelse, False)
    elif isinstance(last, ast.Match):
        for case in last.cases:
            case.body = _drop_implicit_return(case.body, False) or [ast.Pass()]
    elif isinstance(last, (ast.With, ast.AsyncWith)):
        last.body = _drop_implicit_return(last.body, False) or [ast.Pass()]
    elif type(last) is ast.Try and not last.finalbody:
        # (the body falls into the else; a clause ending in a copy of the
        # closing return falls off: 3.10+ copy that return onto its way out)
        if last.orelse:
            last.orelse = _drop_implicit_return(last.orelse, False)
        else:
            last.body = _drop_implicit_return(last.body, False) or [ast.Pass()]
        for handler in last.handlers:
            handler.body = _drop_implicit_return(handler.body, False) or [ast.Pass()]
    return stmts


def _fold_copied_returns(stmts):
    """``if t: return a`` + ``return b`` where the compiler copied the return into
    the branches of one expression (3.12+ shows it) is ``return a if t else b``."""
    for stmt in stmts:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and not isinstance(
                    stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                setattr(stmt, field, _fold_copied_returns(inner))
    out = list(stmts)
    while True:
        last = out[-1] if out else None
        if isinstance(last, ast.If) and len(last.body) == 1 and len(last.orelse) == 1:
            first, second, test, cut = last.body[0], last.orelse[0], last.test, 1
        elif len(out) >= 2 and isinstance(out[-2], ast.If) and len(out[-2].body) == 1 \
                and not out[-2].orelse:
            first, second, test, cut = out[-2].body[0], last, out[-2].test, 2
        else:
            return out
        if not (isinstance(first, ast.Return) and isinstance(second, ast.Return)
                and first.value is not None and second.value is not None
                and (getattr(first, "copied", False) or getattr(second, "copied", False))):
            return out
        node = ast.Return(value=ast.IfExp(test=test, body=first.value, orelse=second.value))
        node.lineno = out[-cut].lineno
        node.copied = False      # an outer fold needs its own branch's copied return
        node.implicit = False
        out[-cut:] = [node]


def _bare_returns(stmts):
    """``return None`` as ``return`` (the same code; the only form an async
    generator allows)."""
    for stmt in stmts:
        kind = type(stmt)
        if kind in _SIMPLE_STATEMENTS:
            if kind is ast.Return and _is_none(stmt.value):
                stmt.value = None
            continue
        if kind in _SCOPES:
            continue        # their own returns are their own
        for field in _BODIES.get(kind, _ALL_BODIES):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                _bare_returns(inner)
    return stmts


#: statements without a body (most of them): nothing inside to visit
_SIMPLE_STATEMENTS = frozenset({ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return,
                                ast.Pass, ast.Break, ast.Continue, ast.Raise, ast.Assert,
                                ast.Delete, ast.Import, ast.ImportFrom, ast.Global,
                                ast.Nonlocal})
_SCOPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_ALL_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")
#: the statement lists of the commonest compound statements (others: all of the above)
_BODIES = {ast.If: ("body", "orelse"), ast.For: ("body", "orelse"),
           ast.While: ("body", "orelse"), ast.With: ("body",), ast.ExceptHandler: ("body",)}
#: ops that may call for a global or nonlocal statement
_DECLARING = frozenset({"STORE_GLOBAL", "DELETE_GLOBAL", "STORE_DEREF", "DELETE_DEREF"})


def _declare(declarations, stmts):
    """``declarations`` placed after what must come first: a docstring, a class
    body's own set-up and ``from __future__`` imports. A module stores with
    STORE_GLOBAL a name some function declares ``global``, and a ``global``
    first would turn its docstring into a plain expression.

    >>> [type(s).__name__ for s in _declare([ast.Global(names=["x"])],
    ...     [ast.Expr(value=ast.Constant(value="doc")), ast.Pass()])]
    ['Expr', 'Global', 'Pass']
    """
    if not declarations:
        return stmts        # (most code: nothing to place)
    i = 0
    while i < len(stmts) and _preamble(stmts[i], i == 0):
        i += 1
    return stmts[:i] + declarations + stmts[i:]


def _preamble(stmt, first):
    if isinstance(stmt, ast.ImportFrom):
        return stmt.module == "__future__"
    if isinstance(stmt, ast.Expr):
        return first and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
            isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id in _PREAMBLE_NAMES
    return False


def _module_docstring(stmts):
    first = stmts[0] if stmts else None
    if isinstance(first, ast.Assign) and len(first.targets) == 1 and \
            isinstance(first.targets[0], ast.Name) and first.targets[0].id == "__doc__" and \
            isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        doc = ast.Expr(value=first.value)
        doc.lineno = getattr(first, "lineno", None)
        return [doc] + stmts[1:]
    return stmts


def _is_none(node):
    return isinstance(node, ast.Constant) and node.value is None


def _strip_class_boilerplate(body):
    """The class body less the compiler's own statements: each prologue name's
    first assignment (a second one is the source's: ``__module__ = 'typing'``),
    the epilogue's, and returns."""
    out = []
    seen = set()
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            if name in _CLASS_EPILOGUE or (name in _CLASS_PROLOGUE and name not in seen):
                seen.add(name)
                continue
            if name == "__doc__" and isinstance(stmt.value, ast.Constant) and not out:
                out.append(ast.Expr(value=stmt.value, lineno=getattr(stmt, "lineno", None)))
                continue
        if isinstance(stmt, ast.Return):
            continue     # a class body only returns None or its __class__ cell
        out.append(stmt)
    return out
