"""Translation validation: the decompiled text, compiled again, against the code it came from.

Every code object of the original is matched with the one the decompiled text
compiles to (by the path of :func:`depyf.verify.compare_code.collect`) and
judged by :mod:`depyf.verify.compare_code`: *identical* by the strict rule, or
*equivalent* (the same control-flow graph up to block order and branch
polarity; for live code, where that fails, the same effects in the same
order on every path, :mod:`depyf.verify.effect_trace`: how the faithful
text of Dynamo's code passes). The caller (:func:`depyf.decompiler.api.decompile_report`) has the
fallback write the objects that are neither, so that what is printed never
behaves differently.

What a record is checked against (:func:`original_of`):

* live code of this interpreter (``decompile(f)``, Dynamo's code): the text is
  compiled here and compared in-process, once per text;
* a record read from marshalled bytes (a .pyc) of this interpreter's version:
  the bytes are loaded with :mod:`marshal`, and the same;
* of another version: the bytes and the text go to that version's own
  interpreter (found through pyenv) in a :class:`~depyf.verify.roundtrip.TargetSession`;
* otherwise the objects are *unverified*, and
  :func:`~depyf.decompiler.verdicts.mark_unverified` says so in the text.

Example::

    >>> from depyf.bytecode import as_record
    >>> record = as_record(compile("def f(x):\\n    return -x\\n", "<s>", "exec"))
    >>> original, reason = original_of(record)
    >>> checks = original.check("def f(x):\\n    return -x\\n", "<module>")
    >>> [(c.path, c.equal) for c in checks]
    [('<module>', True), ('<module>/f#0', True)]
"""
from __future__ import annotations

import ast
import marshal
import re
import sys
import types
import warnings
from dataclasses import dataclass
from typing import Collection, Dict, List, Optional, Set, Tuple

from ..verify import compare_code, effect_trace

#: What the decompiled text is compiled as: no file of the user's has this name.
CANDIDATE_FILENAME = "<depyf validation>"

_HOST = sys.version_info[:2]

#: Errors of compile() on a text that is no valid module.
_COMPILE_ERRORS = (SyntaxError, ValueError, TypeError, OverflowError, RecursionError, MemoryError)


class NotCompiled(Exception):
    """The decompiled text does not compile (the message says why)."""


@dataclass
class ObjectCheck:
    """How one code object of the original compares with the text's."""
    path: str
    equal: bool
    equivalent: bool
    missing: bool = False
    diff: Optional[str] = None
    kind: Optional[str] = None


class Original:
    """What the decompilation of one record is checked against: a code object
    of this interpreter (``code``), or the marshalled module of another
    version's (``marshalled``, checked by that interpreter)."""

    def __init__(self, record, code: Optional[types.CodeType] = None,
                 marshalled: Optional[bytes] = None, interpreter: Optional[str] = None):
        self.record = record
        self.code = code
        self.marshalled = marshalled
        self.interpreter = interpreter
        self._table = None      # the original's, kept for the next check

    @property
    def root(self) -> str:
        """The path of the record itself: ``<module>``, else its qualified name."""
        return "<module>" if self.record.name == "<module>" else (
            self.record.qualname or self.record.name)

    def check(self, text: str, path: str, hidden: Optional[Dict[str, object]] = None,
              skip: Collection[str] = ()) -> List[ObjectCheck]:
        """Compile ``text`` and compare each code object of the original with
        the text's: the record's own code is the text's object at ``path``
        (``<module>`` for a module). ``hidden`` maps placeholder string
        constants of the text to the objects they stand for
        (:func:`placeholders`); the objects at the paths in ``skip`` are not
        compared (see :func:`~depyf.verify.compare_code.compare_tables`).
        Raises :class:`NotCompiled`.

        Example::

            >>> from depyf.bytecode import as_record
            >>> def f(x):
            ...     return 1 if x else 2
            >>> checks = Original(as_record(f), f.__code__).check(
            ...     "def f(x):\\n    return 2 if not x else 1\\n", "<module>/f#0")
            >>> [(c.path, c.equal, c.equivalent) for c in checks]
            [('f', False, True)]
        """
        if self.code is not None:
            return self._check_here(text, path, hidden, skip)
        return self._check_there(text)

    def _check_here(self, text, path, hidden, skip) -> List[ObjectCheck]:
        try:
            with warnings.catch_warnings():
                # (the original warned already, if its source did)
                warnings.simplefilter("ignore")
                module = compile(text, CANDIDATE_FILENAME, "exec", dont_inherit=True)
        except _COMPILE_ERRORS as e:
            raise NotCompiled("%s: %s" % (type(e).__name__, e)) from None
        if hidden:
            module = restore_constants(module, hidden)
        root = self.root
        if self._table is None:
            self._table = compare_code.collect(self.code, root)
        order, mine = self._table
        theirs = compare_code.collect(module)[1]
        found = find_path(theirs, path)
        theirs = compare_code.subtable(theirs, found, root) if found is not None else {}
        checks = []
        for o in compare_code.compare_tables(order, mine, theirs, skip):
            equivalent = o["equivalent"] or (
                o["kind"] not in _NOT_COMPARED and _same_effects(mine.get(o["path"]), theirs.get(o["path"])))
            checks.append(ObjectCheck(o["path"], o["equal"], equivalent,
                                      o["kind"] == "missing object", o["diff"], o["kind"]))
        return checks

    def _check_there(self, text) -> List[ObjectCheck]:
        from ..verify.roundtrip import TargetError, get_session
        try:
            result = get_session(self.record.version).compare_marshalled(
                self.marshalled, text, CANDIDATE_FILENAME)
        except TargetError as e:
            raise Unavailable("Python %d.%d failed: %s" % (tuple(self.record.version) + (e,)))
        if result.error is not None:
            raise Unavailable("Python %d.%d: %s" % (tuple(self.record.version) + (result.error,)))
        if not result.compiles:
            raise NotCompiled(result.compile_error or "?")
        return [ObjectCheck(o.path, o.equal, o.equal or o.equivalent,
                            o.kind == "missing object", o.diff, o.kind) for o in result.objects]


#: kinds of difference that leave nothing to run side by side
_NOT_COMPARED = frozenset(["missing object", "fallback", "no candidate"])


def _same_effects(mine, theirs) -> bool:
    """Both objects' code, run symbolically, does the same things in the same
    order (:mod:`depyf.verify.effect_trace`): the faithful text of code no
    compiler wrote (Dynamo's, which keeps values on the stack where the text
    names them) is equivalent without compiling to the same instructions."""
    if not isinstance(mine, compare_code.CodeEntry) or not isinstance(theirs, compare_code.CodeEntry):
        return False
    return effect_trace.equivalent(mine.code, theirs.code, (mine.disassembled, theirs.disassembled))


class Unavailable(Exception):
    """The interpreter to check against could not answer (the message says why)."""


def original_of(record, find_interpreter=None) -> Tuple[Optional[Original], Optional[str]]:
    """``(original, None)`` to check decompilations of ``record`` against, or
    ``(None, reason)`` why they cannot be checked (``"no Python 3.9 to check
    against"``). ``find_interpreter`` (default
    :func:`depyf.verify.interpreters.find_interpreter`) finds another
    version's interpreter.

    Example::

        >>> from depyf.bytecode import as_record
        >>> original_of(as_record(lambda: 1))[0].code is not None
        True
    """
    version = tuple(record.version)
    if record.live is not None and version == _HOST:
        return Original(record, code=record.live), None
    if record.marshalled is None:
        return None, "its marshalled code is not at hand to check against"
    if version == _HOST:
        try:
            code = marshal.loads(record.marshalled)
        except (ValueError, EOFError, TypeError) as e:
            return None, "this interpreter cannot load its code (%s)" % e
        return Original(record, code=code), None
    if record.name != "<module>":
        return None, "only whole modules are checked by another interpreter"
    if find_interpreter is None:
        from ..verify.interpreters import find_interpreter
    interpreter = find_interpreter(version)
    if interpreter is None:
        return None, "no Python %d.%d to check against" % version
    return Original(record, marshalled=record.marshalled, interpreter=interpreter), None


def find_path(table, path: str) -> Optional[str]:
    """``path`` in a :func:`~depyf.verify.compare_code.collect` table, or
    where a generic function (3.12+) puts it: inside the code object that
    makes its type parameters.

    >>> find_path({"<module>/<generic parameters of f>#0/f#0": None}, "<module>/f#0")
    '<module>/<generic parameters of f>#0/f#0'
    """
    if path in table:
        return path
    parent, _, last = path.rpartition("/")
    name = last.rpartition("#")[0]
    generic = "%s/<generic parameters of %s>#0/%s" % (parent, name, last)
    return generic if generic in table else None


def record_paths(record, root: str) -> Dict[str, object]:
    """Path -> record for ``record`` and the records nested in it, named as
    :func:`~depyf.verify.compare_code.collect` names code objects.

    >>> from depyf.bytecode import as_record
    >>> sorted(record_paths(as_record(compile("f = lambda: 0", "<s>", "exec")), "<module>"))
    ['<module>', '<module>/<lambda>#0']
    """
    out = {}
    stack = [(root, record)]
    while stack:
        path, rec = stack.pop()
        out[path] = rec
        seen: Dict[str, int] = {}
        for child in rec.iter_code_consts():
            k = seen.get(child.name, 0)
            seen[child.name] = k + 1
            stack.append(("%s/%s#%d" % (path, child.name, k), child))
    return out


def scope_path(body: List[ast.stmt], node: ast.stmt) -> Optional[str]:
    """The path of the code object ``node`` compiles to (a ``def``, a class,
    or ``_lambda = lambda ...``) in the module of ``body``: the scopes
    :func:`~depyf.decompiler.live.enclosing_scopes` built around it.

    >>> tree = ast.parse("def make():\\n    n = 1\\n    def f():\\n        return n")
    >>> scope_path(tree.body, tree.body[0].body[1])
    '<module>/make#0/f#0'
    """
    return _search(body, node, "<module>")


def _search(stmts, node, path) -> Optional[str]:
    # (a module-level function: a nested one calling itself would be a
    # reference cycle, keeping the tree for the collector)
    seen: Dict[str, int] = {}
    for stmt in stmts:
        name = _code_name(stmt)
        if name is None:
            continue
        k = seen.get(name, 0)
        seen[name] = k + 1
        here = "%s/%s#%d" % (path, name, k)
        if stmt is node:
            return here
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found = _search(stmt.body, node, here)
            if found is not None:
                return found
    return None


def _code_name(stmt) -> Optional[str]:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return stmt.name
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Lambda):
        return "<lambda>"
    return None


# -- the module around a function ----------------------------------------------------------

#: ``name.attr(``: a call of an attribute of a name (what is not one, in a
#: string say, costs at most an unused import)
_ATTRIBUTE_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*\.\s*[A-Za-z_]\w*\s*\(")


def import_context(text: str, record, namespace=None, method_names=None) -> str:
    """Module-level imports binding each global name whose attribute the
    text calls (``import sys as torch`` for ``torch.abs(x)``), or "".

    From 3.11 the compiler calls ``m.f()`` another way when the module
    binds ``m`` by an import (a module function, not a method): a function
    decompiled on its own is compiled again without its module, and this
    gives it one where the names none of its code objects binds are imports
    (with ``namespace``, the function's globals: those holding a module).

    The compiler asks the module, not the function: where the module imports
    ``torch`` at its top, a function's own ``import torch`` is called so too.
    ``method_names``, the names the original calls methods of
    (:func:`method_called_names`), makes the guess go by the original:
    every other name whose attribute the text calls, the function's own
    included, is taken for an import.

    >>> from depyf.bytecode import as_record
    >>> def f(x):
    ...     return torch.abs(x) + x.m()
    >>> import_context("def f(x):\\n    return torch.abs(x) + x.m()\\n", as_record(f))
    'import sys as torch\\n'
    >>> def g(x):
    ...     import torch
    ...     return torch.abs(x) + log.warn(x)
    >>> text = "def g(x):\\n    import torch\\n    return torch.abs(x) + log.warn(x)\\n"
    >>> import_context(text, as_record(g)), import_context(text, as_record(g), method_names={"log"})
    ('import sys as log\\n', 'import sys as torch\\n')
    """
    names = set(_ATTRIBUTE_CALL.findall(text))
    if not names:
        return ""
    if method_names is None:
        for code in record.walk():
            names.difference_update(code.varnames, code.cellvars, code.freevars)
    else:
        names.difference_update(method_names)
    if namespace is not None:
        names = {n for n in names if n not in namespace or isinstance(namespace[n], types.ModuleType)}
    if not names:
        return ""
    return "import " + ", ".join("sys as %s" % name for name in sorted(names)) + "\n"


#: what loads a name whose attribute a LOAD_METHOD then loads (normalised
#: spellings: 3.12+'s LOAD_FAST_CHECK and 3.14's LOAD_FAST_BORROW arrive as LOAD_FAST)
_NAME_LOADS = frozenset({"LOAD_FAST", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_NAME", "LOAD_CLASSDEREF"})


def method_called_names(record) -> Set[str]:
    """The names some code object of ``record`` calls a method of, as the
    normalised ops say (``LOAD_METHOD`` just after the name's load): names
    the compiler did not take for imports.

    >>> from depyf.bytecode import as_record
    >>> def f(x):
    ...     return log.warn(x.m()), torch.abs(*x)
    >>> sorted(method_called_names(as_record(f)))
    ['log', 'x']
    """
    from ..bytecode.normalize import normalize
    found: Set[str] = set()
    for code in record.walk():
        ops = normalize(code).ops
        found.update(a.arg for a, b in zip(ops, ops[1:])
                     if b.name == "LOAD_METHOD" and a.name in _NAME_LOADS and isinstance(a.arg, str))
    return found


def best_of(first: List[ObjectCheck], second: List[ObjectCheck]) -> List[ObjectCheck]:
    """Per object, the better of two checks of one text (each object is
    checked in the module it compiles alike in).

    >>> a = [ObjectCheck("f", False, False, diff="x")]
    >>> best_of(a, [ObjectCheck("f", False, True)])[0].equivalent
    True
    """
    other = {c.path: c for c in second}
    out = []
    for check in first:
        alt = other.get(check.path)
        if alt is not None and (alt.equal and not check.equal
                                or alt.equivalent and not check.equivalent):
            check = alt
        out.append(check)
    return out


# -- constants no literal writes ------------------------------------------------------------

#: The text of a placeholder constant; no source writes a NUL into a string.
_PLACEHOLDER = "\x00depyf constant %d\x00"


def placeholders(tree: ast.AST, wanted) -> Dict[str, object]:
    """Replace, in ``tree``, each constant ``wanted(value)`` accepts by a
    placeholder string; returns placeholder -> value, for
    :func:`restore_constants` and :func:`put_back`. (Such a constant is
    printed as a name whose definition rebuilds it; what is checked is the
    code around it.)

    >>> tree = ast.parse("f(1)")
    >>> hidden = placeholders(tree, lambda v: v == 1)
    >>> list(hidden.values()), ast.dump(tree.body[0].value.args[0]) != "Constant(value=1)"
    ([1], True)
    """
    hidden: Dict[str, object] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and wanted(node.value):
            text = _PLACEHOLDER % len(hidden)
            hidden[text] = node.value
            node.value = text
    return hidden


def put_back(tree: ast.AST, hidden: Dict[str, object]) -> None:
    """Undo :func:`placeholders`."""
    if not hidden:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in hidden:
            node.value = hidden[node.value]


def restore_constants(code: types.CodeType, hidden: Dict[str, object]) -> types.CodeType:
    """``code`` (and the code nested in it) with each placeholder constant,
    alone or inside a tuple or frozenset, replaced by the object it stands for.

    >>> code = compile("x = ('held', 2)", "<s>", "exec")
    >>> restore_constants(code, {"held": 1.5}).co_consts[0]
    (1.5, 2)
    """
    def value(c):
        if type(c) is str:
            return hidden.get(c, c)
        if type(c) is tuple:
            return tuple(value(v) for v in c)
        if type(c) is frozenset:
            return frozenset(value(v) for v in c)
        if type(c) is types.CodeType:
            return restore_constants(c, hidden)
        return c
    return code.replace(co_consts=tuple(value(c) for c in code.co_consts))
