"""Readable form of code no source produced: Dynamo's transformed code.

The faithful decompilation of Dynamo's bytecode shows every instruction:
values waiting on the stack become ``stack_N`` temporaries, ``COPY`` becomes a
walrus, its lists juggled for a resume call become a dozen statements. The
passes here rewrite that ``def`` into the few lines a person would write,
each pass a small, named rewrite with a worked example in its docstring.

The contract: what may differ from the bytecode
--------------------------------------------------
Run in place of Dynamo's code, the readable function gives the same results
and has the same effects, except for:

1. *when objects are released*: temporaries may live longer (``del tmp_3``
   goes), and lists that only ever lived in temporaries are not built;
2. *loads of what Dynamo installed itself*: its globals (``__compiled_fn_*``,
   ``__resume_at_*``, ``__import_*``), the attributes of the modules it
   installed (``__import_torch_dot__dynamo_dot_utils.call_size``) and the items
   of its tuple of graph outputs (``graph_out_0[1]``, read once on each path
   and in the order Dynamo reads them) may move past calls;
3. reads of ``nn.Module``'s own ``_modules``/``_parameters``/``_buffers``
   dicts (and of their items) may be repeated rather than shared, and may
   move past Dynamo's pregraph markers (``record_pregraph_bytecode_enter``
   and ``_exit``: they time the bytecode that loads a graph's inputs, and
   touch nothing the program sees), as other reads that run no code may;
   the module is ``self`` or any other name, or an item of the frame's own
   ``*args`` tuple (``args[0]``, where a decorator's wrapper is compiled);
4. *a free variable nothing reads* is not declared (``nonlocal``): the
   function's code has fewer free variables, and nothing runs differently.

The order and number of every other call, attribute and subscript access,
store (to anything but a temporary) and raise stay as they are. A step is
taken only where :mod:`.effects` shows it is allowed; where a pass cannot
show that, it leaves the statement as it was. Code whose decompilation went
to the unstructured fallback is left faithful whole.

The passes (in the order of :data:`PASSES`, rounds of them until none
changes anything), then :func:`~.cleanup.fold_negated_tests` (``not a is b``
is ``a is not b``) and :func:`~.naming.name_values`:

* :func:`~.cleanup.drop_temporary_deletes`: ``del tmp_N`` goes;
* :func:`~.cleanup.drop_unused_nonlocals`: ``nonlocal`` of a name nothing uses goes;
* :func:`~.cleanup.drop_dead_stores`: stores nobody reads go (also later);
* :func:`~.lists.follow_local_lists`: Dynamo's list juggling followed to its end;
* :func:`~.cleanup.drop_unused_walrus`: ``(t := v)`` nobody reads is ``v``;
* :func:`~.inline.propagate_copies`: a copy of a parameter is the parameter;
* :func:`~.shared.repeat_module_dict_reads`: ``self._modules['norm']`` read at each use;
* :func:`~.shared.hoist_shared_walrus`: a shared value gets its own statement;
* :func:`~.cleanup.flatten_star_displays`: ``f(*[a, b])`` is ``f(a, b)``;
* :func:`~.inline.inline_single_use`: a value used once goes where it is used;
* :func:`~.cleanup.drop_no_op_statements`: ``[]``, ``None`` statements go;
* :func:`~.cleanup.declare_unbound_cells`: ``if False: b = None`` is ``b: object``.

Example::

    >>> import ast
    >>> fn = ast.parse('''
    ... def f(a, b):
    ...     stack_0 = __compiled_fn_1
    ...     stack_1 = stack_0(a, b)
    ...     graph_out_0 = stack_1
    ...     stack_3 = [graph_out_0[1]]
    ...     stack_2 = stack_3[0:1]
    ...     stack_2.extend([b])
    ...     del graph_out_0
    ...     return __resume_at_9_2(*[[], [], *stack_2])
    ... ''').body[0]
    >>> print(ast.unparse(make_readable(fn, Readable(keep={"a", "b"}))))
    def f(a, b):
        graph_out_0 = __compiled_fn_1(a, b)
        return __resume_at_9_2([], [], graph_out_0[1], b)
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Collection, Mapping, Optional, Sequence

from .cleanup import (declare_unbound_cells, drop_dead_stores, drop_no_op_statements,
                      drop_temporary_deletes, drop_unused_nonlocals, drop_unused_walrus,
                      flatten_star_displays, fold_negated_tests)
from .facts import Facts
from .inline import inline_single_use, propagate_copies
from .lists import follow_local_lists
from .naming import name_values
from .shared import hoist_shared_walrus, repeat_module_dict_reads

#: each pass, with the node classes it works on (None: any body)
PASSES = ((drop_temporary_deletes, (ast.Delete,)),
          (drop_unused_nonlocals, (ast.Nonlocal,)),
          # (early too: Dynamo's dead list displays go before the list pass would walk for them)
          (drop_dead_stores, (ast.Assign,)),
          (follow_local_lists, (ast.List,)),
          (drop_unused_walrus, (ast.NamedExpr,)),
          (propagate_copies, None),
          (repeat_module_dict_reads, (ast.NamedExpr,)),
          (hoist_shared_walrus, (ast.NamedExpr,)),
          (flatten_star_displays, (ast.Starred,)),
          (inline_single_use, None),
          (drop_dead_stores, (ast.Assign,)),
          (drop_no_op_statements, (ast.Expr, ast.Pass)),
          (declare_unbound_cells, (ast.If,)))
#: rounds of all passes at most (each round takes at least one step; bodies are small)
MAX_ROUNDS = 50


@dataclass(frozen=True)
class Readable:
    """What the readable form may know beyond the bytecode.

    ``keep``: the names that are the user's (the original function's
    variables): their stores stay and they keep their names; None: every
    name of the code but Dynamo's and the decompiler's temporaries.
    ``callees``: global name -> parameter names of the function it holds
    (Dynamo's resume functions), which name the values passed to it.
    """
    keep: Optional[Collection[str]] = None
    callees: Mapping[str, Sequence[str]] = field(default_factory=dict)


def make_readable(fn: ast.FunctionDef, hints: Readable) -> ast.FunctionDef:
    """Rewrite ``fn``'s body in place into its readable form; returns ``fn``."""
    facts = Facts(fn, frozenset(hints.keep or ()), hints.callees)
    census = facts.census
    # A pass that found nothing to do finds nothing again until another pass
    # changes the body: ``edits`` counts the runs that changed it, ``clean``
    # holds each pass's count when it last found nothing.
    edits, clean = 0, {}
    for _ in range(MAX_ROUNDS):
        changed = False
        for step, works_on in PASSES:
            if clean.get(step) == edits:
                continue
            # (the first class looked up alone: most passes work on one, and this runs often)
            if works_on is None or census[works_on[0]] or any(census[kind] for kind in works_on[1:]):
                if step(facts):
                    edits += 1
                    changed = True
                    continue
            clean[step] = edits
        if not changed:
            break
    if census[ast.UnaryOp]:     # (the fold walks every node: only where a ``not`` may be)
        fold_negated_tests(fn)
    name_values(facts)
    return fn


__all__ = ["PASSES", "Readable", "make_readable"]
