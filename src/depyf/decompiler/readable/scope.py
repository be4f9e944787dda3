"""What the names of one function are, as far as the readable passes care.

A rewrite may drop, move or rename only what nobody can see: a *temporary*
is a plain local of the function (not a parameter, not a cell, not declared
``global``/``nonlocal``) that is not one of the names the caller asked to
keep (the original function's variables). Everything else is the user's:
stores to it stay where they are and it keeps its name.

Example::

    >>> import ast
    >>> from depyf.decompiler.readable.facts import scope_of
    >>> fn = ast.parse("def f(a):\\n    t = a\\n    u = g(t)\\n    return u").body[0]
    >>> facts = scope_of(fn, keep={"u"})
    >>> sorted(facts.temporaries), facts.loads["t"], facts.kind_of("g")
    (['t'], 1, 'global')
"""
from __future__ import annotations

import ast
import builtins
import keyword
import re
from typing import Collection, Dict, List, Optional, Set

from ..astcompat import bound_name

#: what the structured code and Dynamo name their own values
DYNAMO_TEMPORARY = re.compile(r"^(tmp|stack)_\d+$|^graph_out_\d+$")
#: Dynamo's tuple of a graph's outputs: indexing it runs no code
GRAPH_OUTPUT = re.compile(r"^graph_out_\d+$")
#: globals Dynamo installs in the frame's module itself
DYNAMO_GLOBAL = re.compile(r"^(__compiled_fn_\w+|__resume_at_\d+_\d+|__import_\w+)$")
#: a module alias Dynamo installs (``__import_torch_dot_nn``): its attributes are functions
DYNAMO_MODULE = re.compile(r"^__import_\w+$")

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
          ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class Scope:
    """Name facts of one ``def``: kinds, and how often each name is loaded,
    stored and deleted in its own body (nested scopes not counted); the
    counts are kept current by the edits of :class:`~.facts.Facts`."""

    def __init__(self, fn: ast.FunctionDef, keep: Collection[str], loads: Dict[str, int],
                 stores: Dict[str, int], deletes: Dict[str, int], nested: Set[str], every_name: Set[str], declared_global: Set[str],
                 declared_nonlocal: Set[str]):
        self.fn = fn
        self.params = set(parameters(fn.args))
        self.loads, self.stores, self.deletes = loads, stores, deletes
        #: names a nested scope mentions: cells here, if local
        self.nested = nested
        #: every name anywhere, nested scopes included: a fresh name avoids them all
        self.every_name = every_name | self.params
        bound = {n for n, k in stores.items() if k} | {n for n, k in deletes.items() if k} | self.params
        self.globals = declared_global
        self.nonlocals = declared_nonlocal
        self.cells = (declared_nonlocal | (bound & nested)) - declared_global
        self.plain_locals = bound - declared_global - self.cells
        self.temporaries = {n for n in self.plain_locals - self.params if n not in keep}

    def kind_of(self, name: str) -> str:
        """'local' (a plain local: only this frame's stores change it), 'cell',
        or 'global' (a global or builtin)."""
        if name in self.plain_locals:
            return "local"
        if name in self.cells:
            return "cell"
        return "global"

    def is_temporary(self, name: str) -> bool:
        return name in self.temporaries

    def plain_varargs(self) -> Optional[str]:
        """The name of the frame's ``*args`` tuple where the frame never
        rebinds it (then ``args[0]`` is one object for the frame's life, read
        without running code), else None."""
        vararg = self.fn.args.vararg
        if vararg is None or self.stores[vararg.arg] or self.deletes[vararg.arg]:
            return None
        return vararg.arg

    def is_free(self, name: str) -> bool:
        """May ``name`` be bound anew here: no one in the function uses it, and
        it is neither a keyword nor a builtin?"""
        return not (name in self.every_name or keyword.iskeyword(name) or hasattr(builtins, name))

    def fresh(self, base: str) -> str:
        """A new temporary no one in the function uses, nor a builtin or
        keyword: ``base``, else ``base_1``, ``base_2``..."""
        base = base if base.isidentifier() else "value"
        name, n = base, 0
        while not self.is_free(name):
            n += 1
            name = "%s_%d" % (base, n)
        self.every_name.add(name)
        self.temporaries.add(name)
        self.plain_locals.add(name)
        return name


def parameters(args: ast.arguments) -> List[str]:
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


def own_children(node: ast.AST) -> List[ast.AST]:
    """The children of ``node`` evaluated in its own scope: a nested ``def``'s
    decorators and defaults are, its body is not; a comprehension's first
    iterable is."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = node.args
        return (list(node.decorator_list) + [d for d in args.defaults if d is not None]
                + [d for d in args.kw_defaults if d is not None]
                + ([node.returns] if node.returns is not None else []))
    if isinstance(node, ast.ClassDef):
        return list(node.decorator_list) + list(node.bases) + [k.value for k in node.keywords]
    if isinstance(node, ast.Lambda):
        args = node.args
        return [d for d in args.defaults if d is not None] + [d for d in args.kw_defaults if d is not None]
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return [node.generators[0].iter]
    out = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend([item for item in value if isinstance(item, ast.AST)])
    return out


def inner_parts(node: ast.AST) -> List[ast.AST]:
    """What of a nested scope runs in that scope, not in this one."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return list(node.body) + [node.args]
    if isinstance(node, ast.ClassDef):
        return list(node.body)
    if isinstance(node, ast.Lambda):
        return [node.args, node.body]
    first, *rest = node.generators
    parts = [first.target] + list(first.ifs) + list(rest)
    return parts + ([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt])


def free_names(node: ast.AST) -> Set[str]:
    """The names nested scope ``node`` takes from the scopes around it: those it
    (or a scope inside it) uses without binding them, and its ``nonlocal`` ones.

    >>> import ast
    >>> sorted(free_names(ast.parse("def g(a):\\n    b = a + c\\n    return lambda: b + d").body[0]))
    ['c', 'd']
    """
    bound: Set[str] = set()
    used: Set[str] = set()
    declared_global: Set[str] = set()
    declared_nonlocal: Set[str] = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        bound.update(parameters(node.args))
    todo: List[ast.AST] = [p for p in inner_parts(node) if not isinstance(p, ast.arguments)]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = node.args
        todo += [a.annotation for a in args.posonlyargs + args.args + args.kwonlyargs if a.annotation]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name):
            used.add(n.id)
        name = bound_name(n)
        if name:
            bound.add(name)
        if isinstance(n, ast.Name):
            continue
        if isinstance(n, ast.Global):
            declared_global.update(n.names)
        elif isinstance(n, ast.Nonlocal):
            declared_nonlocal.update(n.names)
        if isinstance(n, SCOPES):
            used.update(free_names(n))
            todo.extend(own_children(n))
            continue
        todo.extend(ast.iter_child_nodes(n))
    if isinstance(node, ast.ClassDef):
        return used - declared_global      # a class body's names do not close over
    return (used - bound - declared_global) | declared_nonlocal
