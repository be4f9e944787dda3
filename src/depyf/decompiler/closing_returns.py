"""The compiler's closing ``return None`` in code that holds no return statement.

A module or class body can hold no ``return``: every one the walk finds is the
compiler's own closing return or a copy of it (3.10+ copies it into the ways out
of the last statement's branches, a ``break`` of a loop ending the code among
them). Each leaves the code, so it may go only where nothing else would run
after it; elsewhere it becomes what reaches the end without running anything
more, or the code goes to the fallback::

    if c:                         if c:
        A                             A
        return            ->      else:
    B                                 B

    while t:                      while t:
        if c:                         if c:
            return        ->              break
        A                             A
    B                             else:
                                      B

Example::

    >>> tree = ast.parse("while t:\\n    if c:\\n        return\\n    a()\\nreturn")
    >>> print(ast.unparse(without_returns(tree.body)))
    while t:
        if c:
            break
        a()
"""
from __future__ import annotations

import ast
from typing import List

from .astcompat import TryStar
from .expressions import DecompileFailure

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_WITHS = (ast.With, ast.AsyncWith)
_TRIES = (ast.Try, TryStar)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_LEAVING = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def without_returns(stmts: List[ast.stmt], closing=frozenset()) -> List[ast.stmt]:
    """``stmts`` (a whole module or class body) with no return statement left and
    the same flow; raises DecompileFailure where no such form is found.
    ``closing``: names the compiler's closing code stores before its return (a
    class body's ``__static_attributes__``): copied with it, they go with it."""
    return _block(stmts, True, False, closing)


def _block(stmts, tail: bool, breaks: bool, closing) -> List[ast.stmt]:
    """``tail``: falling off the block's end ends the code; ``breaks``: the block
    is a loop's body (or inside one, at its level) and that loop ends the code,
    so a ``break`` ends it too."""
    if tail and stmts and isinstance(stmts[-1], ast.Return):
        # (what it ends, the code's end ends too)
        stmts = stmts[:-1]
        while stmts and _stores(stmts[-1], closing):
            stmts = stmts[:-1]
    out = []
    for k, stmt in enumerate(stmts):
        last = k == len(stmts) - 1
        if isinstance(stmt, ast.Return):
            while out and _stores(out[-1], closing):
                out.pop()
            if breaks and not (tail and last):
                out.append(ast.copy_location(ast.Break(), stmt))
            elif not (tail and last):
                raise DecompileFailure("the compiler's return before code that would run on")
            return out
        if isinstance(stmt, _SCOPES) or not _holds_return(stmt):
            out.append(stmt)
            continue
        if isinstance(stmt, ast.If) and not last and tail and not breaks:
            # The branch that returns leaves the code: what follows is the other's.
            rest = stmts[k + 1:]
            if _leaves(stmt.body):
                stmt.orelse = stmt.orelse + rest if not _leaves(stmt.orelse) else stmt.orelse
                last = True
            elif _leaves(stmt.orelse):
                stmt.body = stmt.body + rest
                last = True
        elif isinstance(stmt, _LOOPS) and not last and tail and not breaks and not stmt.orelse:
            # A return in the body skips what follows the loop, as a break skips
            # an else clause.
            stmt.orelse = stmts[k + 1:]
            last = True
        out.append(_statement(stmt, tail and last, breaks, closing))
        if last:
            break
    return out


def _statement(stmt, tail: bool, breaks: bool, closing) -> ast.stmt:
    if isinstance(stmt, ast.If):
        stmt.body = _block(stmt.body, tail, breaks, closing) or [ast.Pass()]
        stmt.orelse = _block(stmt.orelse, tail, breaks, closing)
    elif isinstance(stmt, _LOOPS):
        # (a break there leaves this loop only: one in an outer loop's body would
        # go on with that body)
        stmt.body = _block(stmt.body, False, tail, closing) or [ast.Pass()]
        stmt.orelse = _block(stmt.orelse, tail, breaks, closing)
    elif isinstance(stmt, _WITHS):
        stmt.body = _block(stmt.body, tail, breaks, closing) or [ast.Pass()]
    elif isinstance(stmt, _TRIES):
        # (falling off the body runs the else clause, which a return skips)
        stmt.body = _block(stmt.body, tail and not stmt.orelse, breaks, closing) or [ast.Pass()]
        for handler in stmt.handlers:
            handler.body = _block(handler.body, tail, breaks, closing) or [ast.Pass()]
        stmt.orelse = _block(stmt.orelse, tail, breaks, closing)
        # (a return in a finally body drops the exception in flight: only a
        # break does that too)
        if stmt.finalbody:
            stmt.finalbody = _block(stmt.finalbody, False, breaks, closing) or [ast.Pass()]
    elif isinstance(stmt, getattr(ast, "Match", ())):
        for case in stmt.cases:
            case.body = _block(case.body, tail, breaks, closing) or [ast.Pass()]
    else:
        raise DecompileFailure("a return inside a %s" % type(stmt).__name__)
    return stmt


def _stores(stmt, names) -> bool:
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id in names


def _holds_return(stmt) -> bool:
    """A return statement inside ``stmt`` (not inside a nested def or class)."""
    work = [stmt]
    while work:
        node = work.pop()
        if isinstance(node, ast.Return):
            return True
        if node is not stmt and isinstance(node, _SCOPES):
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                work.extend(inner)
    return False


def _leaves(stmts) -> bool:
    """Control never falls off the end of ``stmts`` (False where unsure)."""
    last = stmts[-1] if stmts else None
    if isinstance(last, _LEAVING):
        return True
    if isinstance(last, ast.If):
        return _leaves(last.body) and _leaves(last.orelse)
    if isinstance(last, _TRIES):
        if last.finalbody and _leaves(last.finalbody):
            return True
        return _leaves(last.orelse or last.body) and all(_leaves(h.body) for h in last.handlers)
    return False
