"""Torch's C++ guard trees written out as plain, runnable Python.

A cache entry of torch.compile keeps a tree of guards: a root manager, accessors that reach
values (``L['x']``, ``.weight``, ``[0]``, ``type(...)``...), child managers and leaf guards
(``TYPE_MATCH``, ``TENSOR_MATCH``...).  :func:`render_guards` walks that tree and writes one
Python function whose verdict equals ``guard_manager.check(L)``; :data:`PRELUDE` holds the
helpers it calls.  A guard depyf cannot translate becomes a call that raises
``GuardNotTranslated`` naming the guard kind; it never passes silently.

Example::

    >>> code = render_guards(entry.guard_manager, "guard_0")        # doctest: +SKIP
    >>> ns = {}; exec(PRELUDE + code.source, ns)                     # doctest: +SKIP
    >>> ns["guard_0"](frame_locals, fn.__globals__)                   # doctest: +SKIP
    True
"""

from __future__ import annotations

import ast
import dataclasses
import keyword
import re
import string

from torch._C._dynamo import guards as _cguards

from .torch_compat import nan_guards_keep_their_value, recorded_global_state

from .guard_text import (
    ID_TAIL,
    PRELUDE,
    CannotTranslate,
    Memo,
    accessor_argument,
    dispatch_keys_expr,
    equals_value_text,
    eval_constant,
    finish,
    getattr_expr,
    global_state_checks,
    int_arg,
    length_from_text,
    parse_expr,
    read_literal,
    strip_comment,
    subscript_key,
    tensor_match,
    to_python,
    type_check,
    type_from_text,
    type_ref,
)

__all__ = ["PRELUDE", "GuardCode", "render_guards", "TRANSLATED_KINDS"]


@dataclasses.dataclass
class GuardCode:
    """One cache entry's guards as Python.

    source: ``def <name>(L, G): ...`` returning bool; lines: one expression per guard, in
    guard-tree order; count: len(lines); kinds: torch's guard kind for each line.
    """

    source: str
    count: int
    lines: list
    kinds: list = dataclasses.field(default_factory=list)


TRANSLATED_KINDS = frozenset(
    {
        "TYPE_MATCH", "ID_MATCH", "EQUALS_MATCH", "TRUE_MATCH", "FALSE_MATCH", "NONE_MATCH",
        "NOT_NONE", "LENGTH_CHECK", "DICT_LENGTH", "TUPLE_ITERATOR_LEN", "RANGE_ITERATOR_MATCH",
        "DICT_CONTAINS", "SET_CONTAINS", "MAPPING_KEYS_MATCH", "DICT_VERSION", "NO_HASATTR",
        "DEFAULT_DEVICE", "GLOBAL_STATE", "TORCH_FUNCTION_MODE_STACK", "DUAL_LEVEL_MATCH",
        "FLOAT_IS_NAN", "COMPLEX_IS_NAN", "TENSOR_MATCH", "DIMENSION_DYNAMIC_MARKING_GUARD",
        "DISPATCH_KEY_SET_MATCH", "FAKE_SCRIPT_TYPE_MATCH", "NO_TENSOR_ALIASING",
        "OBJECT_ALIASING", "SYMBOLIC_SHAPE_GUARD", "STORAGE_OVERLAPPING", "LAMBDA_GUARD",
        "DYNAMIC_INDICES",
    }
)


class _Check:
    """One guard as a Python expression that is true when the guard passes
    (``negated``: true when it fails).  A plain class, never changed once made, so
    renders share the memoized ones (_LEAF_MEMO)."""

    __slots__ = ("kind", "expr", "note", "negated", "line")

    def __init__(self, kind, expr, note="", finished=None):
        self.kind = kind
        self.expr, self.negated = finished or finish(expr)
        # torch describes types as "<class 'module'>"; the name alone reads better.
        if note.startswith("<class '") and note.endswith("'>") and "\n" not in note:
            note = note[8:-2]
        self.note = note
        # the line a guard function shows for it (renders share memoized checks)
        self.line = f"if {self.negated}:  # {note}" if note else f"if {self.negated}:"

    def about(self, expr):
        """This check, made about _STAND_IN, made about `expr` (see stand_in_parts)."""
        check = _Check.__new__(_Check)
        check.kind, check.note = self.kind, self.note
        check.expr = self.expr.replace(_STAND_IN, expr)
        check.negated = negated = self.negated.replace(_STAND_IN, expr)
        check.line = f"if {negated}:  # {self.note}" if self.note else f"if {negated}:"
        return check


@dataclasses.dataclass
class Node:
    """A guard manager and how to reach its value."""

    manager: object
    expr: str
    source: str
    parent: "Node | None" = None
    via_generic_dict: bool = False


# Accessors whose expression is a template of the parent's ({}), built per accessor of every render.
_SIMPLE_ACCESSORS = {
    "GlobalsGuardAccessor": "G",
    "TypeGuardAccessor": "type({})",
    "TypeDictGuardAccessor": "type_dict({})",
    "TypeMROGuardAccessor": "{}.__mro__",
    "CodeGuardAccessor": "{}.__code__",
    "ClosureGuardAccessor": "{}.__closure__",
    "FuncDefaultsGuardAccessor": "{}.__defaults__",
    "FuncKwDefaultsGuardAccessor": "{}.__kwdefaults__",
    "WeakRefCallGuardAccessor": "weakref_target({})",
    "CallFunctionNoArgsGuardAccessor": "{}()",
    "GradGuardAccessor": "{}.grad",
}


def _untranslated(kind, reason):
    """A check that raises GuardNotTranslated naming `kind`.  Its call of two string
    constants is what ast writes back (repr), so it is not simplified."""
    expr = f"not_translated({kind!r}, {reason!r})"
    return _Check(kind, expr, finished=(expr, "not " + expr))


class Renderer:
    """One walk of a guard tree into the checks of the guard function
    (:func:`render_guards` runs it and writes the text)."""

    def __init__(self, guard_manager):
        self.wrapper = guard_manager if hasattr(guard_manager, "root") else None
        self.root = getattr(guard_manager, "root", guard_manager)
        self.global_checks = []
        self.checks = []
        self.epilogue = []
        # Relational guards span several managers: kind, participating expressions, text.
        self.relational = {}
        self.keepalive = []

    # -- tree walk --

    def run(self):
        root = Node(self.root, "L", "L")
        for leaf in self.root.get_leaf_guards():
            self._leaf(leaf, root, self.global_checks)
        for accessor, child in zip(self.root.get_accessors(), self.root.get_child_managers()):
            self._child(accessor, child, root)
        for leaf in self.root.get_epilogue_lambda_guards():
            self._leaf(leaf, root, self.epilogue)

    def _visit(self, node):
        manager = node.manager
        is_dict = isinstance(manager, _cguards.DictGuardManager)
        if is_dict and self._dict_header(node) == 0:
            return
        checks = self.checks
        for leaf in manager.get_leaf_guards():
            self._leaf(leaf, node, checks)
        for accessor, child in zip(manager.get_accessors(), manager.get_child_managers()):
            self._child(accessor, child, node)
        if is_dict:
            self._dict_items(node)

    def _child(self, accessor, child, parent):
        text = accessor.repr()
        name = text.partition("(")[0].partition("<")[0]
        try:
            node = self._access(name, text, accessor, child, parent)
        except Exception as exc:  # noqa: BLE001 - one untranslatable accessor must not lose the rest
            self.checks.append(_untranslated(name, f"{child.get_source()}: {exc}"))
            return
        if node is not None:
            self._visit(node)

    def _access(self, name, text, accessor, child, parent):
        """The node for `child`, reached from `parent` through `accessor` (whose repr is `text`)."""
        pexpr, source = parent.expr, child.get_source()
        template = _SIMPLE_ACCESSORS.get(name)
        if template is not None:
            return Node(child, template.format(pexpr), source, parent)
        if name == "GetGenericDictGuardAccessor":
            return Node(child, f"{pexpr}.__dict__", source, parent, via_generic_dict=True)
        if name == "FrameLocalsGuardAccessor":
            key = read_literal(_FRAME_LOCALS_KEY.match(text).group(1))
            return Node(child, f"{pexpr}[{key!r}]", source, parent)
        if name == "DictGetItemGuardAccessor":
            return Node(child, self._dict_getitem(parent, read_literal(accessor_argument(text))), source, parent)
        if name == "GetAttrGuardAccessor":
            return Node(child, getattr_expr(pexpr, accessor.get_attr_name()), source, parent)
        if name == "GenericGetAttrGuardAccessor":
            return Node(child, f"object.__getattribute__({pexpr}, {accessor_argument(text)!r})", source, parent)
        if name == "GetItemGuardAccessor":
            return Node(child, f"{pexpr}[{subscript_key(source, parent.source, text)!r}]", source, parent)
        if name in ("ListGetItemGuardAccessor", "TupleGetItemGuardAccessor"):
            base = list if name.startswith("List") else tuple
            index = int_arg(text)
            exact = parent.manager.get_type_of_guarded_value() is base
            expr = f"{pexpr}[{index}]" if exact else f"{base.__name__}.__getitem__({pexpr}, {index})"
            return Node(child, expr, source, parent)
        if name == "SetGetItemGuardAccessor":
            return Node(child, f"list({pexpr})[{int_arg(text)}]", source, parent)
        if name == "TupleIteratorGetItemAccessor":
            return Node(child, f"tuple_iterator_getitem({pexpr}, {int_arg(text)})", source, parent)
        if name == "GlobalWeakRefGuardAccessor":
            return Node(child, f"weakref_target({pexpr}[{accessor_argument(text)!r}])", source, parent)
        if name == "TensorPropertyGuardAccessor":
            prop = _TENSOR_PROPERTY.search(text).group(1)
            if prop == "STORAGE_OFFSET":
                return Node(child, f"{pexpr}.storage_offset()", source, parent)
            method = {"SIZE": "size", "STRIDE": "stride"}.get(prop)
            if method is None:
                raise CannotTranslate(text)
            return Node(child, f"{pexpr}.{method}()[{int_arg(text)}]", source, parent)
        if name in ("IndexedGuardAccesor", "IndexedGuardAccessor"):
            # Feeds (index, value) to a SYMBOLIC_SHAPE_GUARD, which we write from its own text.
            return Node(child, pexpr, source, parent)
        if name == "PythonLambdaGuardAccessor":
            return Node(child, to_python(source, [(parent.source, pexpr)]), source, parent)
        raise CannotTranslate(f"accessor {text}")

    def _dict_getitem(self, parent, key):
        if (
            parent.via_generic_dict
            and isinstance(key, str)
            and key.isidentifier()
            and not keyword.iskeyword(key)
            and _plain_attribute(parent.parent, key)
        ):
            return f"{parent.parent.expr}.{key}"
        if parent.manager.get_type_of_guarded_value() is dict or parent.expr == "G":
            return f"{parent.expr}[{key!r}]"
        return f"dict.__getitem__({parent.expr}, {key!r})"

    # -- dicts --

    def _dict_header(self, node):
        """The type and length checks a DictGuardManager makes before anything else."""
        cls = node.manager.get_type_of_guarded_value()
        try:
            size = _dict_size(node.manager)
        except CannotTranslate as exc:
            self.checks.append(_untranslated("DICT_LENGTH", str(exc)))
            return None
        self.checks.append(_Check("DICT_TYPE", *type_check(node.expr, cls, id(cls), cls.__qualname__)))
        length = f"len({node.expr})" if cls is dict else f"dict.__len__({node.expr})"
        self.checks.append(_Check("DICT_LENGTH", f"{length} == {size}"))
        return size

    def _dict_items(self, node):
        pairs = node.manager.get_key_value_managers()
        for index in sorted(pairs):
            key_manager, value_manager = pairs[index]
            key_literal = _NO_LITERAL
            if key_manager is not None:
                key_node = Node(key_manager, f"dict_key_at({node.expr}, {index})", key_manager.get_source(), node)
                self._visit(key_node)
                key_literal = _equals_literal(key_manager)
            if value_manager is not None:
                if key_literal is not _NO_LITERAL:
                    expr = (
                        f"{node.expr}[{key_literal!r}]"
                        if node.manager.get_type_of_guarded_value() is dict
                        else f"dict.__getitem__({node.expr}, {key_literal!r})"
                    )
                else:
                    expr = f"dict_value_at({node.expr}, {index})"
                self._visit(Node(value_manager, expr, value_manager.get_source(), node))

    # -- leaf guards --

    def _leaf(self, leaf, node, out):
        self.keepalive.append(leaf)
        kind = type(leaf).__name__
        raw = leaf.verbose_code_parts()
        key = _memo_key(kind, node)
        if key is None:
            out.extend(self._translate(kind, _code(raw), node, leaf))
            return
        # Recompiles of one frame repeat most guards word for word: their Python is looked up.
        seen = key + (tuple(raw), node.source, node.expr)
        hit = _LEAF_MEMO.get(seen)
        if hit is None:
            # (the class rides along, so that the id in a type-keyed entry stays its own)
            hit = (node.manager.get_type_of_guarded_value(), self._shared(kind, key, _code(raw), node, leaf))
            _LEAF_MEMO.put(seen, hit)
        out.extend(hit[1])

    def _shared(self, kind, key, parts, node, leaf):
        """The checks of a leaf guard, made once for the stand-in value where the texts
        allow: the values of one program share most guard texts but for their names."""
        shared = stand_in_parts(parts, node)
        if shared is None:
            return tuple(self._translate(kind, parts, node, leaf))
        key = key + (shared,)
        hit = _LEAF_MEMO.get(key)
        if hit is None:
            try:
                checks = tuple(self._checks(kind, shared, about_stand_in(node), leaf))
            except Exception:  # noqa: BLE001 - translated about the value itself, which the error names
                checks = None
            if checks and any(_STAND_IN in check.note for check in checks):
                checks = None
            hit = (node.manager.get_type_of_guarded_value(), checks)
            _LEAF_MEMO.put(key, hit)
        if hit[1] is None:
            return tuple(self._translate(kind, parts, node, leaf))
        expr = node.expr
        return tuple([check.about(expr) for check in hit[1]])

    def _translate(self, kind, parts, node, leaf):
        try:
            return self._checks(kind, parts, node, leaf)
        except Exception as exc:  # noqa: BLE001 - an odd guard becomes a raising check, not a crash
            return [_untranslated(kind, str(exc) or type(exc).__name__)]

    def _checks(self, kind, parts, node, leaf):
        handler = _LEAF_HANDLERS.get(kind)
        if handler is None:
            raise CannotTranslate(f"unknown guard kind; text: {' and '.join(parts)}")
        return handler(self, parts, node, leaf)

    def _same(self, parts, node, kind):
        """Guards whose text is already Python about the guarded value."""
        return [_Check(kind, to_python(p, [(node.source, node.expr)])) for p in parts]

    def _leaf_TYPE_MATCH(self, parts, node, leaf):
        type_id, cls, described = type_from_text(parts[0], node.manager)
        expr, note = type_check(node.expr, cls, type_id, described)
        return [_Check("TYPE_MATCH", expr, note)]

    def _leaf_FAKE_SCRIPT_TYPE_MATCH(self, parts, node, leaf):
        type_id, cls, described = type_from_text(parts[0], node.manager)
        real = f"getattr({node.expr}, 'real_obj', {node.expr})"
        expr, note = type_check(real, cls, type_id, described)
        return [_Check("FAKE_SCRIPT_TYPE_MATCH", expr, note)]

    def _leaf_ID_MATCH(self, parts, node, leaf):
        match = ID_TAIL.search(parts[0])
        if not match:
            raise CannotTranslate(parts[0])
        return [_Check("ID_MATCH", f"id({node.expr}) == {match.group(1)}", match.group(2) or "")]

    def _leaf_EQUALS_MATCH(self, parts, node, leaf):
        value_text = equals_value_text(parts[0])
        value = eval_constant(value_text)
        expected = node.manager.get_type_of_guarded_value()
        if type(value) is not expected:
            raise CannotTranslate(f"value {value_text} is not a {expected.__name__}")
        return [_Check("EQUALS_MATCH", f"check_equals({node.expr}, {to_python(value_text)})")]

    def _leaf_TRUE_MATCH(self, parts, node, leaf):
        return [_Check("TRUE_MATCH", f"{node.expr} is True")]

    def _leaf_FALSE_MATCH(self, parts, node, leaf):
        return [_Check("FALSE_MATCH", f"{node.expr} is False")]

    def _leaf_NONE_MATCH(self, parts, node, leaf):
        return [_Check("NONE_MATCH", f"{node.expr} is None")]

    def _leaf_NOT_NONE(self, parts, node, leaf):
        return [_Check("NOT_NONE", f"{node.expr} is not None")]

    def _leaf_LENGTH_CHECK(self, parts, node, leaf):
        return [_Check("LENGTH_CHECK", f"len({node.expr}) == {length_from_text(parts[0])}")]

    def _leaf_DICT_LENGTH(self, parts, node, leaf):
        n = length_from_text(parts[0])
        return [_Check("DICT_LENGTH", f"isinstance({node.expr}, dict) and dict.__len__({node.expr}) == {n}")]

    def _leaf_TUPLE_ITERATOR_LEN(self, parts, node, leaf):
        n = int(parts[0].rsplit("==", 1)[1])
        cls = node.manager.get_type_of_guarded_value()
        ref = type_ref(cls) or "type(iter(()))"
        return [_Check("TUPLE_ITERATOR_LEN", f"type({node.expr}) is {ref} and tuple_iterator_len({node.expr}) == {n}")]

    def _leaf_RANGE_ITERATOR_MATCH(self, parts, node, leaf):
        expected = read_literal(parts[0].rsplit("==", 1)[1])
        ref = type_ref(node.manager.get_type_of_guarded_value()) or "type(iter(range(0)))"
        expr = f"type({node.expr}) is {ref} and normalize_range_iter({node.expr}) == {expected!r}"
        return [_Check("RANGE_ITERATOR_MATCH", expr)]

    def _leaf_DICT_CONTAINS(self, parts, node, leaf):
        return self._same(parts, node, "DICT_CONTAINS")

    def _leaf_SET_CONTAINS(self, parts, node, leaf):
        match = _SET_CONTAINS.match(parts[0])
        if not match:
            raise CannotTranslate(parts[0])
        args = parse_expr(f"f({match.group(2)})").args
        item = ast.unparse(args[1])
        read_literal(item)
        expr = f"set_contains({node.expr}, {item})"
        return [_Check("SET_CONTAINS", f"not {expr}" if match.group(1) else expr)]

    def _leaf_MAPPING_KEYS_MATCH(self, parts, node, leaf):
        return self._same(parts, node, "MAPPING_KEYS_MATCH")

    def _leaf_DICT_VERSION(self, parts, node, leaf):
        n = int(parts[0].rsplit("==", 1)[1])
        return [_Check("DICT_VERSION", f"isinstance({node.expr}, dict) and dict_version({node.expr}) == {n}")]

    def _leaf_NO_HASATTR(self, parts, node, leaf):
        return self._same(parts, node, "NO_HASATTR")

    def _leaf_DEFAULT_DEVICE(self, parts, node, leaf):
        return [_Check("DEFAULT_DEVICE", to_python(parts[0]))]

    def _leaf_DUAL_LEVEL_MATCH(self, parts, node, leaf):
        level = int(parts[0].rsplit("==", 1)[1])
        current = "torch.autograd.forward_ad._current_level"
        return [_Check("DUAL_LEVEL_MATCH", f"type({current}) is int and {current} == {level}")]

    def _leaf_FLOAT_IS_NAN(self, parts, node, leaf):
        _any_nan("FLOAT_IS_NAN")
        return [_Check("FLOAT_IS_NAN", f"type({node.expr}) is float and math.isnan({node.expr})")]

    def _leaf_COMPLEX_IS_NAN(self, parts, node, leaf):
        _any_nan("COMPLEX_IS_NAN")
        e = node.expr
        return [_Check("COMPLEX_IS_NAN", f"type({e}) is complex and (math.isnan({e}.real) or math.isnan({e}.imag))")]

    def _leaf_DIMENSION_DYNAMIC_MARKING_GUARD(self, parts, node, leaf):
        return self._same(parts, node, "DIMENSION_DYNAMIC_MARKING_GUARD")

    def _leaf_DISPATCH_KEY_SET_MATCH(self, parts, node, leaf):
        match = _DISPATCH_KEYS.search(parts[0])
        if not match:
            raise CannotTranslate(parts[0])
        keys = dispatch_keys_expr(match.group(1))
        expr = f"with_local_dispatch_keys({node.expr}).raw_repr() == with_local_dispatch_keys({keys}).raw_repr()"
        return [_Check("DISPATCH_KEY_SET_MATCH", expr)]

    def _leaf_TENSOR_MATCH(self, parts, node, leaf):
        return [_Check("TENSOR_MATCH", tensor_match(parts[0], node))]

    def _leaf_GLOBAL_STATE(self, parts, node, leaf):
        recorded = recorded_global_state(parts[0], self.wrapper)
        if recorded is None:
            raise CannotTranslate(f"unexpected GLOBAL_STATE text: {parts[0]}")
        return [_Check("GLOBAL_STATE", expr) for expr in global_state_checks(recorded)]

    def _leaf_DYNAMIC_INDICES(self, parts, node, leaf):
        # (torch 2.9) `(x._dynamo_dynamic_indices.issubset({0})) if hasattr(x, ...) else True`
        return self._same(parts, node, "DYNAMIC_INDICES")

    def _leaf_TORCH_FUNCTION_MODE_STACK(self, parts, node, leaf):
        types = _initial_mode_stack(self.wrapper)
        refs = [type_ref(t) for t in types]
        if all(refs):
            return [_Check("TORCH_FUNCTION_MODE_STACK", f"torch_function_mode_types() == [{', '.join(refs)}]")]
        ids = ", ".join(str(id(t)) for t in types)
        return [_Check("TORCH_FUNCTION_MODE_STACK", f"[id(t) for t in torch_function_mode_types()] == [{ids}]")]

    def _leaf_LAMBDA_GUARD(self, parts, node, leaf):
        checks = []
        for part in parts:
            hooks = _SAVED_TENSORS_HOOKS.match(part)
            if hooks:
                checks.append(_Check("LAMBDA_GUARD", f"saved_tensors_hooks_ids() == {read_literal(hooks.group(1))!r}"))
            elif _PYTHON_CLOSURE.match(part):
                raise CannotTranslate(f"a Python closure of torch ({part}) with no text to translate")
            else:
                checks.append(_Check("LAMBDA_GUARD", to_python(part, [(node.source, node.expr)])))
        return checks

    # -- relational guards: one leaf guard object shared by several managers --

    def _relational(self, kind, parts, node, leaf, key=None):
        """Collect the managers sharing one relational guard (torch returns the same Python
        object for it from each manager; self.keepalive keeps ids unique meanwhile)."""
        entry = self.relational.setdefault(key or id(leaf), [kind, [], parts])
        entry[1].append((node.source, node.expr))
        return []

    def _leaf_NO_TENSOR_ALIASING(self, parts, node, leaf):
        return self._relational("NO_TENSOR_ALIASING", parts, node, leaf)

    def _leaf_OBJECT_ALIASING(self, parts, node, leaf):
        return self._relational("OBJECT_ALIASING", parts, node, leaf)

    def _leaf_SYMBOLIC_SHAPE_GUARD(self, parts, node, leaf):
        return self._relational("SYMBOLIC_SHAPE_GUARD", parts, node, leaf)

    def _leaf_STORAGE_OVERLAPPING(self, parts, node, leaf):
        # Two guard objects (overlapping, non-overlapping tensors) share one check and its text.
        return self._relational("STORAGE_OVERLAPPING", parts, node, leaf, key=("STORAGE_OVERLAPPING", *parts))

    def relational_checks(self):
        checks = []
        for kind, nodes, parts in self.relational.values():
            exprs = [expr for _, expr in nodes]
            if kind == "NO_TENSOR_ALIASING":
                checks.append(_Check(kind, f"no_aliasing({', '.join(exprs)})"))
            elif kind == "OBJECT_ALIASING":
                checks.append(_Check(kind, " is ".join(exprs)))
            else:
                # Shape guards and storage overlap: their text is Python over torch's names.
                for part in parts:
                    try:
                        checks.append(_Check(kind, to_python(part, nodes)))
                    except CannotTranslate as exc:
                        checks.append(_untranslated(kind, str(exc)))
        return checks


# Each leaf guard kind's translation: Renderer._leaf_<kind>.
_LEAF_HANDLERS = {
    name[len("_leaf_"):]: handler for name, handler in vars(Renderer).items() if name.startswith("_leaf_")
}

# The texts of accessors and leaf guards, read for every guard of every render: compiled once.
_FRAME_LOCALS_KEY = re.compile(r"FrameLocalsGuardAccessor\(key=(.*), framelocals_idx=")
_TENSOR_PROPERTY = re.compile(r"TensorProperty::(\w+)")
_SET_CONTAINS = re.compile(r"^(not )?set\.__contains__\((.*)\)$")
_DISPATCH_KEYS = re.compile(r"DispatchKeySet\(([^)]*)\)\.raw_repr\(\)$")
_SAVED_TENSORS_HOOKS = re.compile(r"^torch\._functorch\.aot_autograd\.utils\.top_saved_tensors_hooks ids == (.*)$")
_PYTHON_CLOSURE = re.compile(r"^(___check_metadata_|__dtensor_spec_|___check_opaque_guard_fn_)")

# Leaf guards whose Python follows from their text and the guarded value's source and
# expression alone (not from its type, the wrapper or other managers); _Check objects
# are never changed, so renders share them. (Not GLOBAL_STATE: torch 2.9's text
# leaves the state to the wrapper; global_state_checks caches by state.)
_TEXT_ONLY_KINDS = frozenset(
    {
        "ID_MATCH", "TRUE_MATCH", "FALSE_MATCH", "NONE_MATCH", "NOT_NONE", "LENGTH_CHECK", "DICT_LENGTH",
        "DICT_CONTAINS", "SET_CONTAINS", "MAPPING_KEYS_MATCH", "DICT_VERSION", "NO_HASATTR",
        "DEFAULT_DEVICE", "DUAL_LEVEL_MATCH", "FLOAT_IS_NAN", "COMPLEX_IS_NAN",
        "DIMENSION_DYNAMIC_MARKING_GUARD", "DISPATCH_KEY_SET_MATCH", "LAMBDA_GUARD", "DYNAMIC_INDICES",
    }
)
# And leaf guards whose Python follows from that and the guarded value's class, when the
# class is one whose name (in builtins, torch...) cannot be rebound under the guards
# (EQUALS_MATCH: whether its constant has that class).
_TYPE_KINDS = frozenset({"TYPE_MATCH", "TENSOR_MATCH", "EQUALS_MATCH"})
_STABLE_MODULES = frozenset({"builtins", "torch", "collections", "types", "itertools", "math", "weakref"})
_LEAF_MEMO = Memo()


def _memo_key(kind, node):
    """The start of a leaf guard's key in _LEAF_MEMO, or None for guards translated each time."""
    if kind in _TEXT_ONLY_KINDS:
        return (kind,)
    if kind in _TYPE_KINDS:
        cls = node.manager.get_type_of_guarded_value()
        module = getattr(cls, "__module__", None)
        if isinstance(module, str) and module.split(".")[0] in _STABLE_MODULES:
            # by id: a metaclass may define ==
            return (kind, id(cls))
    return None


# The value a leaf guard is translated about, so that guards on many values share one
# translation (_LEAF_MEMO): the Python of a guard about `L['x']` is that about the stand-in
# with `L['x']` written in its place, where the texts name `L['x']` as stand_in_parts
# requires.  Guard texts never hold "$".
_STAND_IN = "L['$']"
# What a value's expression must be to take its place: like the stand-in, a frame local or
# global with attributes (no keywords) and subscripts, by strings that read as themselves
# (no spaces, quotes or operators: the translation reads `  `, `==` and `#`) or by ints.
_PLAIN_PATH = re.compile(
    r"[LG]\['[A-Za-z0-9_.]+'\](?:\['[A-Za-z0-9_.]+'\]|\[(?:0|[1-9][0-9]*)\]|\.(?!(?:%s)\b)[A-Za-z_][A-Za-z0-9_]*)*"
    % "|".join(keyword.kwlist)
)


def stand_in_parts(parts, node):
    """`parts` with the guarded value's expression replaced by _STAND_IN, where each place
    it stands is a whole operand (not in a string, not part of a longer name), so that
    reading and rewriting the text treats both alike; else None.

    >>> stand_in_parts(("len(L['x']) == 2",), Node(None, "L['x']", "L['x']"))
    ("len(L['$']) == 2",)
    """
    expr = node.expr
    if node.source != expr or not _PLAIN_PATH.fullmatch(expr):
        return None
    shared = []
    for part in parts:
        # (no double quotes, escapes or triple quotes: every quote pairs with the next one)
        if not part.isascii() or "$" in part or '"' in part or "\\" in part or "'''" in part:
            return None
        pieces = part.split(expr)
        quotes = 0          # before each place (the expression's own quotes pair up)
        for before, after in zip(pieces, pieces[1:]):
            quotes += before.count("'")
            if quotes % 2 or before[-1:] in _GLUED_BEFORE or after[:1] in _GLUED_AFTER:
                return None
        shared.append(_STAND_IN.join(pieces))
    return tuple(shared)


_GLUED_AFTER = frozenset(string.ascii_letters + string.digits + "_'")
_GLUED_BEFORE = _GLUED_AFTER | {"."}


def _code(raw):
    return tuple([strip_comment(part) for part in raw])


def about_stand_in(node):
    """``node`` with the stand-in value in place of its own expression.

    >>> about_stand_in(Node(None, "L['x']", "L['x']")).expr
    "L['$']"
    """
    return Node(node.manager, _STAND_IN, _STAND_IN, node.parent, node.via_generic_dict)


_NO_LITERAL = object()


def _equals_literal(manager):
    """The constant an EQUALS_MATCH on `manager` compares with, if it is a literal."""
    for leaf in manager.get_leaf_guards():
        if type(leaf).__name__ == "EQUALS_MATCH":
            text = strip_comment(leaf.verbose_code_parts()[0])
            try:
                return read_literal(equals_value_text(text))
            except CannotTranslate:
                return _NO_LITERAL
    return _NO_LITERAL


def _plain_attribute(owner, name):
    """Whether `owner.name` reads owner.__dict__[name] (no data descriptor, no custom lookup),
    so the tree's `.__dict__[name]` may be written `.name`.  Only trusted when a guard on
    `owner` fixes its type before the attribute is read."""
    if owner is None:
        return False
    kinds = {type(g).__name__ for g in owner.manager.get_leaf_guards()}
    if not kinds & {"TYPE_MATCH", "ID_MATCH"}:
        return False
    cls = owner.manager.get_type_of_guarded_value()
    if cls.__getattribute__ is not object.__getattribute__:
        return False
    for klass in cls.__mro__:
        attr = klass.__dict__.get(name)
        if attr is not None and (hasattr(type(attr), "__set__") or hasattr(type(attr), "__delete__")):
            return False
    return True


def _dict_size(manager):
    """The length a DictGuardManager requires.  Torch keeps it in C++ only, but it makes these
    managers only for dicts whose key order it guards, with a key manager for every key."""
    pairs = manager.get_key_value_managers()
    keyed = sorted(i for i, (key_manager, _) in pairs.items() if key_manager is not None)
    if keyed != list(range(len(keyed))) or any(i >= len(keyed) for i in pairs):
        raise CannotTranslate(f"dict length of {manager.get_source()} is not recorded in its key guards")
    return len(keyed)


def _initial_mode_stack(wrapper):
    """The mode types Dynamo saw on the torch function mode stack; torch keeps them in the
    closure of the Python check it builds beside the C++ guard."""
    check = (getattr(wrapper, "closure_vars", None) or {}).get("___check_torch_function_mode_stack")
    code = getattr(check, "__code__", None)
    if code is None or "types" not in code.co_freevars:
        raise CannotTranslate("the mode stack Dynamo saw is not available")
    return list(check.__closure__[code.co_freevars.index("types")].cell_contents)


def _any_nan(kind):
    """A NaN guard that passes any NaN is written as such; one that compares the
    NaN's bits with a value torch keeps in C++ only cannot be."""
    if nan_guards_keep_their_value():
        raise CannotTranslate(f"{kind} compares the NaN's bits with the value it recorded, which only "
                              "torch's C++ guard holds")


def _emit(lines, indent, checks):
    fail = indent + "    return False"
    for check in checks:
        lines.append(indent + check.line)
        lines.append(fail)


def render_guards(guard_manager, name):
    """Write the guards of one cache entry as ``def <name>(L, G)`` returning bool.

    `guard_manager` is a cache entry's ``guard_manager`` (torch's wrapper) or its root.
    Example::

        >>> entry = torch._dynamo.eval_frame._debug_get_cache_entry_list(f.__code__)[0]  # doctest: +SKIP
        >>> print(render_guards(entry.guard_manager, "guard_0").source)                # doctest: +SKIP
        def guard_0(L, G):
            ...
            if not (check_tensor(L['x'], torch.Tensor, torch.float32, ...)):
                return False
    """
    renderer = Renderer(guard_manager)
    renderer.run()
    global_checks = renderer.global_checks
    # Torch runs its epilogue (shape) guards after every other guard.
    body_checks = renderer.checks + renderer.relational_checks() + renderer.epilogue
    all_checks = global_checks + body_checks

    out = [f"def {name}(L, G):"]
    out.append(f'    """{len(all_checks)} guards of one torch.compile cache entry, as plain Python."""')
    out.append("    try:")
    out.append("        # Process-wide state, checked as torch does with torch functions enabled.")
    _emit(out, "        ", global_checks)
    out.append("        # The rest runs with torch functions disabled, as in torch's guard manager.")
    out.append("        with torch._C.DisableTorchFunction():")
    _emit(out, "            ", body_checks)
    out.append("            pass")
    out.append("    except GuardNotTranslated:")
    out.append("        raise")
    out.append("    except Exception:")
    out.append("        # Torch's guards fail (never raise) when an attribute, key or index is missing.")
    out.append("        return False")
    out.append("    return True")
    out.append("")
    return GuardCode(
        source="\n".join(out),
        count=len(all_checks),
        lines=[c.expr for c in all_checks],
        kinds=[c.kind for c in all_checks],
    )
