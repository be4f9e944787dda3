"""Shrink a failing source to a small one that fails the same way.

A generated program that depyf gets wrong is mostly noise around the one
construct at fault. :func:`minimize` deletes and simplifies statements and
expressions of its syntax tree, greedily, keeping each step that still
fails with the same kind (a predicate the caller gives), and writes the
result back with ``ast.unparse`` (3.9+): a plain snippet for a regression case.

Example::

    >>> fails = lambda src: "y" in src and "z" not in src
    >>> minimize("a = 1\\nif a:\\n    y()\\nb = 2\\n", fails)
    'y()\\n'
"""
from __future__ import annotations

import ast
import copy
from typing import Callable, Iterator, List, Optional

#: Statement-list fields of the nodes that hold them.
BODIES = ("body", "orelse", "finalbody")

#: Upper bound on predicate calls: a minimization costs at most this many trips.
MAX_TRIES = 2000


def _parse(source: str) -> Optional[ast.Module]:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _unparse(tree: ast.AST) -> Optional[str]:
    try:
        return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    except (ValueError, TypeError, AttributeError, RecursionError):
        return None


def _statement_lists(tree: ast.AST) -> Iterator[List[ast.stmt]]:
    """Every list of statements in the tree (bodies, else/finally blocks,
    except handlers' and match cases' bodies), outermost first."""
    for node in ast.walk(tree):
        for name in BODIES:
            value = getattr(node, name, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                yield value


def _statement_edits(tree: ast.Module) -> Iterator[ast.Module]:
    """Trees with one statement removed, one compound statement replaced by
    one of its blocks, or one of its optional blocks (else, finally, the
    handlers) dropped, in that order of preference. An edit may give a tree
    that does not compile (a ``try`` with neither handler nor finally): the
    caller's predicate rejects it."""
    n_lists = sum(1 for _ in _statement_lists(tree))
    for li in range(n_lists):
        length = len(list(_statement_lists(tree))[li])
        for si in range(length):
            # Remove statement si of list li (an emptied block gets `pass`).
            new = copy.deepcopy(tree)
            stmts = list(_statement_lists(new))[li]
            del stmts[si]
            if not stmts:
                stmts.append(ast.Pass())
            yield new
            # Replace a compound statement by one of its blocks.
            for name in BODIES + ("handlers", "cases"):
                new = copy.deepcopy(tree)
                stmts = list(_statement_lists(new))[li]
                node = stmts[si]
                blocks = getattr(node, name, None)
                if not blocks:
                    continue
                if name in ("handlers", "cases"):
                    blocks = [s for h in blocks for s in h.body]
                stmts[si:si + 1] = blocks
                yield new
            for name in ("orelse", "finalbody", "handlers"):
                new = copy.deepcopy(tree)
                node = list(_statement_lists(new))[li][si]
                if getattr(node, name, None):
                    setattr(node, name, [])
                    yield new


def _expression_edits(tree: ast.Module) -> Iterator[ast.Module]:
    """Trees with one expression replaced by a name or a small constant."""
    count = sum(1 for n in ast.walk(tree) if isinstance(n, ast.expr))
    for index in range(count):
        for replacement in (ast.Name("x", ast.Load()), ast.Constant(0)):
            new = copy.deepcopy(tree)
            target = [n for n in ast.walk(new) if isinstance(n, ast.expr)][index]
            if isinstance(target, (ast.Name, ast.Constant)) or not isinstance(
                    getattr(target, "ctx", ast.Load()), ast.Load):
                break  # already minimal, or a store target: leave it
            if not _replace(new, target, replacement):
                break
            yield new


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> bool:
    """Put ``new`` where ``old`` is in ``tree``; False if not found."""
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, name, new)
                return True
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = new
                        return True
    return False


def minimize(source: str, fails: Callable[[str], bool], max_tries: int = MAX_TRIES) -> str:
    """The smallest source found that ``fails`` still holds for.

    ``fails(source)`` says whether a candidate still shows the failure (the
    same kind, and the host compiles it: the caller checks both). Starts from
    ``ast.unparse`` of the source when that still fails, else returns the
    source unchanged; each pass takes the first edit that keeps failing and
    starts over, until no edit helps or ``max_tries`` calls are spent.

    Example::

        >>> minimize("x = 1\\n", lambda s: False)     # nothing to keep failing
        'x = 1\\n'
    """
    tree = _parse(source)
    text = _unparse(tree) if tree is not None else None
    tries = 1
    if text is None or not fails(text):
        return source
    best, best_tree = text, tree
    improved = True
    while improved and tries < max_tries:
        improved = False
        for edits in (_statement_edits, _expression_edits):
            for candidate_tree in edits(best_tree):
                candidate = _unparse(candidate_tree)
                if candidate is None or len(candidate) >= len(best):
                    continue
                tries += 1
                if fails(candidate):
                    best, best_tree, improved = candidate, _parse(candidate), True
                    break
                if tries >= max_tries:
                    break
            if improved or tries >= max_tries:
                break
    return best
