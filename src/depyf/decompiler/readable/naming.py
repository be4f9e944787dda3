"""Give the values that stay named a name that says what they are."""
from __future__ import annotations

import ast
import builtins
import re
from typing import Dict, Optional, Set

from .effects import MODULE_DICTS
from .facts import Facts
from .inline import callee_name
from .shared import is_module_dict_read, is_module_object

#: names that say nothing: the decompiler's and Dynamo's temporaries, and this package's own
GENERIC = re.compile(r"^(stack|tmp|item|value)(_\d+)?$")


def name_values(facts: Facts) -> bool:
    """Each temporary called ``stack_N``/``tmp_N`` gets a name: the
    parameter of the resume function it is passed to, else what it was read
    from or made by.

    Before::                                        After::

        tmp_2 = utils.enter()                           enter_result = utils.enter()
        stack_1 = self._modules['norm']                 norm_weight = self._modules['norm']
                  ._parameters['weight']                              ._parameters['weight']
        item = print('x')                               ___stack0 = print('x')
        return __resume_at_8_1(item, stack_1)          return __resume_at_8_1(___stack0, norm_weight)
    """
    scope = facts.scope
    renamed = sorted((name for name in scope.temporaries if scope.stores[name] and GENERIC.match(name)),
                     key=_natural)
    # (names given up here may be taken again: every one is renamed at once below)
    scope.every_name.difference_update(renamed)
    namer = _Namer(facts, set(renamed))
    for name in renamed:
        namer.new_name(name)
    renames = namer.renames
    nodes = {old: facts.by_name.pop(old, []) for old in renames}
    for old, new in renames.items():
        for node in nodes[old]:
            node.id = new
        facts.by_name[new] = nodes[old]
    if renames:
        facts.edited()
    return bool(renames)


class _Namer:
    """The new names of the temporaries ``pending`` (a class, not a closure
    that calls itself: that would be a reference cycle holding the facts,
    left for the garbage collector)."""

    def __init__(self, facts: Facts, pending: Set[str]):
        self.facts, self.pending = facts, pending
        self.renames: Dict[str, str] = {}

    def new_name(self, name: str) -> Optional[str]:
        """The name ``name`` ends up with: a value made from a temporary is
        described by that temporary's new name (``item()`` is
        ``item_result``), so a temporary's is settled first; None for one
        whose name is not settled yet (a cycle) or says nothing."""
        renames, scope = self.renames, self.facts.scope
        if name in renames:
            return renames[name]
        if name not in self.pending:
            return None if GENERIC.match(name) else name
        self.pending.discard(name)
        passed = _passed_as(self.facts, name)
        if passed is not None and not scope.is_free(passed):
            passed = None       # (the function's own parameter, say: a suffix would say less)
        base = passed or _read_from(self.facts, name, self.new_name) or "value"
        if hasattr(builtins, base):
            base = "builtin_" + base        # (the builtin's own name would shadow it)
        renames[name] = scope.fresh(base)
        return renames[name]


def _passed_as(facts: Facts, name: str) -> Optional[str]:
    """The parameter that receives ``name`` when it is passed by position to
    a function whose parameters are known."""
    loads = facts.loads(name)
    if len(loads) != 1:
        return None
    use = loads[0]
    for node in facts.own_expression_nodes(facts.statement_of(use)):
        if not isinstance(node, ast.Call):
            continue
        params = facts.callees.get(callee_name(node.func))
        if not params:
            continue
        for k, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred):
                break
            if arg is use and k < len(params) and params[k].isidentifier():
                return params[k]
    return None


def _read_from(facts: Facts, name: str, name_of=None) -> Optional[str]:
    binding = facts.binding(name)
    if binding is not None:
        return describe(binding.value, name_of, facts.scope.plain_varargs())
    stores = facts.stores(name)
    if len(stores) == 1:
        holder = facts.statement_of(stores[0])
        if isinstance(holder, (ast.For, ast.AsyncFor)):
            return _loop_target_name(holder, stores[0])
    return None


def _loop_target_name(loop: ast.For, store: ast.Name) -> Optional[str]:
    """``key``/``value`` for the targets of ``for k, v in d.items()``."""
    target, it = loop.target, loop.iter
    if (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(it, ast.Call)
            and isinstance(it.func, ast.Attribute) and it.func.attr == "items" and not it.args):
        return "key" if target.elts[0] is store else "value" if target.elts[1] is store else None
    return None


def describe(node: ast.expr, name_of=None, varargs: Optional[str] = None) -> Optional[str]:
    """A name for the value of ``node``: the attribute or key it reads, the
    function it calls. ``name_of(name)`` is what a name read there stands
    for (None: nothing that says what it is); by default the name itself.
    ``varargs``: the frame's ``*args``, whose items may be modules
    (:func:`~.shared.is_module_object`).

    >>> import ast
    >>> describe(ast.parse("self._modules['norm']._parameters['weight']", mode="eval").body)
    'norm_weight'
    >>> describe(ast.parse("utils.record_enter()", mode="eval").body)
    'record_enter_result'
    """
    if is_module_dict_read(node, varargs) or (is_module_object(node, varargs) and not isinstance(node, ast.Name)):
        return _module_path_name(node)
    if isinstance(node, ast.Attribute):
        return _clean(node.attr)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        key = node.slice.value
        if isinstance(key, str) and _clean(key):
            return _clean(key)
        base = _word(node.value.id, name_of) if isinstance(node.value, ast.Name) \
            else describe(node.value, name_of, varargs)
        if isinstance(key, int) and base:
            return "%s_%d" % (base, key) if key >= 0 else base + "_last"
        return None
    if isinstance(node, ast.Call):
        called = describe(node.func, name_of, varargs) if not isinstance(node.func, ast.Name) \
            else _word(node.func.id, name_of)
        return called + "_result" if called else None
    if isinstance(node, ast.Name):
        word = _word(node.id, name_of)
        return word + "_value" if word else None
    return None


def _word(name: str, name_of) -> Optional[str]:
    """``name`` as part of a new name: what ``name_of`` says it stands for."""
    if name_of is not None:
        name = name_of(name)
    return _clean(name) if name else None


def _module_path_name(node: ast.expr) -> Optional[str]:
    keys = []
    root = node
    while not isinstance(root, ast.Name):
        if isinstance(root, ast.Subscript) and isinstance(root.value, ast.Name) and type(root.slice.value) is int:
            root = root.value       # (the frame's args[0]: the module's path starts after it)
            break
        if isinstance(root, ast.Subscript) and root.slice.value not in MODULE_DICTS:
            keys.append(root.slice.value)       # (not the key of m.__dict__['_modules'])
        root = root.value
    keys.reverse()
    if not keys:
        return _clean(node.attr) if isinstance(node, ast.Attribute) else None
    if not keys[0][:1].isalpha():
        keys.insert(0, root.id)
    return _clean("_".join(keys))


def _clean(text: str) -> Optional[str]:
    word = re.sub(r"\W+", "_", text).strip("_")
    if not word:
        return None
    return word if word[0].isalpha() else "v" + word


def _natural(name: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]
