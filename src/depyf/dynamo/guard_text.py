"""Reading the text of torch's guards and writing it back as plain Python.

Torch's leaf guards expose only their "verbose code parts": the Python-like text torch built
them from, e.g. ``check_tensor(L['x'], Tensor, DispatchKeySet(CPU, ...), torch.float32, ...)``
or ``___check_type_id(L['d'], 9412...)``.  These helpers parse that text, rename torch's
closure variables to the PRELUDE's helpers and name classes so a reader can follow them.
"""
import ast
import functools
import builtins
import importlib
import io
import json
import keyword
import os
import re
import sys
import tokenize
import types

import torch

_PRELUDE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guard_prelude.py")
with open(_PRELUDE_PATH, encoding="utf-8") as _f:
    PRELUDE = _f.read()


# Names torch's guard text uses (its guard closure variables) -> the PRELUDE's plain Python.
RENAMES = {
    "___check_type_id": "has_type_id",
    "___check_obj_id": "has_id",
    "___odict_getitem": "odict_getitem",
    "___key_to_id": "key_to_id",
    "___dict_version": "dict_version",
    "___dict_contains": "dict_contains_key",
    "___tuple_iterator_len": "tuple_iterator_len",
    "___normalize_count_iter": "normalize_count_iter",
    "___normalize_range_iter": "normalize_range_iter",
    "___tuple_iterator_getitem": "tuple_iterator_getitem",
    "___dataclass_fields": "dataclass_fields",
    "___namedtuple_fields": "namedtuple_fields",
    "___get_torch_function_mode_stack_at": "torch_function_mode_at",
    "___get_current_stream": "current_stream",
    "___from_numpy": "tensor_from_numpy",
    "___as_tensor": "torch._as_tensor_fullprec",
    "__math_isnan": "math.isnan",
    "__numpy_isnan": "numpy_isnan",
    "__load_module": "importlib.import_module",
    "utils_device": "torch.utils._device",
    "device": "torch.device",
    "inf": "math.inf",
    "IsNonOverlappingAndDenseIndicator": "is_non_overlapping_and_dense_indicator",
}


# ScalarType numbers (c10's enum order) of the dtypes torch's global state records.
SCALAR_TYPES = {
    0: "torch.uint8", 1: "torch.int8", 2: "torch.int16", 3: "torch.int32", 4: "torch.int64",
    5: "torch.float16", 6: "torch.float32", 7: "torch.float64", 8: "torch.complex32",
    9: "torch.complex64", 10: "torch.complex128", 11: "torch.bool", 15: "torch.bfloat16",
}


# The order of torch's per-device autocast state (ATen's _AUTOCAST_SUPPORTED_DEVICES).
AUTOCAST_DEVICES = ("cpu", "cuda", "mtia", "maia", "xpu", "ipu", "hpu", "xla", "privateuseone", "mps")


def prelude_names():
    names = set()
    for node in ast.parse(PRELUDE).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


KNOWN_NAMES = prelude_names() | set(dir(builtins)) | {"L", "G"}


class CannotTranslate(Exception):
    pass


class Memo(dict):
    """A bounded dict of translations, which clear_caches empties too (unlike lru_cache, it
    can key on a class by id while it keeps the class).

    >>> memo = Memo(limit=2); memo.put("a", 1); memo.get("a")
    1
    """

    def __init__(self, limit=4096):
        super().__init__()
        self.limit = limit
        _MEMOS.append(self)

    def put(self, key, value):
        if len(self) >= self.limit:
            self.clear()
        self[key] = value


_MEMOS = []


@functools.lru_cache(maxsize=8192)
def strip_comment(part):
    """The code of a verbose code part, without the '# user code' comment torch appends."""
    cut = _comment_start(part)
    if cut is None:
        return strip_comment_tokens(part)
    code = part[:cut]
    return (_HINT.sub("", code) if "(HINT: " in code else code).rstrip()


def _comment_start(part):
    """Where the comment of a one-line guard text starts (its length if none),
    found without the tokenizer; None for text it should read (triple quotes)."""
    if "#" not in part:
        return len(part)
    if "\'\'\'" in part or '"""' in part:
        return None
    cut = part.index("#")
    code = part[:cut]
    if code.count("'") % 2 == 0 and '"' not in code and "\\" not in code and "\n" not in code:
        return cut          # its quotes pair up before the first '#': no string holds it
    end = _CODE.match(part).end()
    if end == len(part) or part[end] == "#":
        return end
    return None             # an unterminated string: the tokenizer decides


_HINT = re.compile(r"\s*\(HINT: .*\)$")
# (strings unrolled, so that their plain characters go by in runs)
_CODE = re.compile(r"""(?:[^'"#\n\\]+|'[^'\\\n]*(?:\\.[^'\\\n]*)*'|"[^"\\\n]*(?:\\.[^"\\\n]*)*")*""")


def strip_comment_tokens(part):
    """:func:`strip_comment` read with the tokenizer: the slow path its quick one
    must agree with (a ``#`` inside a string is no comment).

    >>> strip_comment_tokens("L['x'] == '#'  # x.y")
    "L['x'] == '#'"
    """
    try:
        for tok in tokenize.generate_tokens(io.StringIO(part).readline):
            if tok.type == tokenize.COMMENT:
                return part[: tok.start[1]].rstrip()
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return _HINT.sub("", part.split("  # ")[0]).rstrip()


def parse_expr(text):
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise CannotTranslate(f"not Python: {text}") from exc


class Rewriter(ast.NodeTransformer):
    """Renames torch's closure names and replaces torch's source text by our expression."""

    def __init__(self, replacements):
        # (to_python drops the replacements that change nothing)
        self.replacements = [(ast.dump(parse_expr(s)), parse_expr(e)) for s, e in replacements]

    def visit(self, node):
        if not self.replacements:
            return super().visit(node)
        dumped = ast.dump(node) if isinstance(node, ast.expr) else None
        for key, repl in self.replacements:
            if dumped == key:
                return repl
        return super().visit(node)

    def visit_Name(self, node):
        if node.id in RENAMES:
            return parse_expr(RENAMES[node.id])
        return node


def free_names(tree):
    bound = {
        n.id
        for comp in ast.walk(tree)
        if isinstance(comp, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp))
        for gen in comp.generators
        for n in ast.walk(gen.target)
        if isinstance(n, ast.Name)
    }
    bound |= {a.arg for lam in ast.walk(tree) if isinstance(lam, ast.Lambda) for a in lam.args.args}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - bound


def to_python(text, replacements=()):
    """Torch's guard text as checked Python over L, G and the PRELUDE names."""
    replacements = tuple((s, e) for s, e in replacements if s != e)
    if not replacements:
        quick = rename_quickly(text)
        if quick is not None:
            return quick        # names renamed on the text: no rewrite and unparse
    # Guard texts repeat (every tensor of every entry has the same few): cached.
    return to_python_by_ast(text, replacements)


@functools.lru_cache(maxsize=8192)
def rename_quickly(text):
    """``text`` with torch's names renamed (RENAMES), when its tokens show it is one
    Python expression whose names are all known; None where the ast path must decide
    (anything :func:`expression_names` is not sure of, an unknown name).

    >>> rename_quickly("___check_obj_id(L['x'], 5)"), rename_quickly("frobnicate(x)")
    ("has_id(L['x'], 5)", None)
    """
    text = text.strip()
    if "'" not in text or '"' in text:
        return rename_shape(text)
    # Texts differ mostly in their strings (keys, attribute names): their shape, with
    # the strings emptied, is read once and the strings put back.
    shape = _STRING_LITERAL.sub("''", text)
    renamed = rename_shape(shape)
    if renamed is None or renamed == shape:
        return renamed and text
    pieces = renamed.split("''")
    out = [pieces[0]]
    for string, piece in zip(_STRING_LITERAL.findall(text), pieces[1:]):
        out += (string, piece)
    return "".join(out)


# The single-quoted strings expression_names reads: emptied, they leave its verdict and
# names as they are (in a text without double quotes).
_STRING_LITERAL = re.compile(r"'[^'\\\n\r\x00\ud800-\udfff]*'")


@functools.lru_cache(maxsize=8192)
def rename_shape(text):
    """:func:`rename_quickly` on a text whose strings say nothing of its shape
    (none, or emptied): its names renamed, or None for an unknown name.

    >>> rename_shape("___check_obj_id(L[''], 5)")
    "has_id(L[''], 5)"
    """
    names = expression_names(text)
    if names is None:
        return None
    renames = []
    for m in names:
        name = m.group("name")
        if name in RENAMES:
            renames.append(m)
        elif name not in KNOWN_NAMES:
            return None
    for m in reversed(renames):
        text = text[:m.start("name")] + RENAMES[m.group("name")] + text[m.end("name"):]
    return text


# One token of what expression_names reads.  The lookaheads refuse what Python reads
# otherwise (`1if`, `1.x`, a triple quote); a string prefix is a name before a string,
# which the states refuse.
_TOKEN = re.compile(
    r" *(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<number>(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)(?![A-Za-z0-9_.])"
    r"|(?P<string>'[^'\\\n\r\x00\ud800-\udfff]*'(?!')|\"[^\"\\\n\r\x00\ud800-\udfff]*\"(?!\"))"
    r"|(?P<op>==|!=|<=|>=|\*\*|//|<<|>>|[-+*/%@&|^<>~.,=()\[\]]))"
)
_BINARY = frozenset({"==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^",
                     "<<", ">>"})
_UNARY = frozenset({"-", "+", "~"})
_CONSTANT_WORDS = frozenset({"None", "True", "False"})
_KEYWORDS = frozenset(keyword.kwlist)


def expression_names(text):
    """The name tokens (matches of _TOKEN) that read variables in ``text``, when its
    tokens show for sure that it is one Python expression made of names, numbers, plain
    strings, attributes, calls (keyword arguments too), subscripts, tuples, lists, unary,
    binary and comparison operators, ``and``, ``or`` and ``not``; else None (the parser
    decides).  Torch's guard texts are mostly of this kind, and reading them so costs a
    fraction of ``ast.parse``.

    >>> [m.group("name") for m in expression_names("f(L['x'], k=inf) == 2")]
    ['f', 'L', 'inf']
    >>> expression_names("L['x'] ==") is None
    True
    """
    names = []
    frames = []             # open brackets: [closer, is a call, its keywords, this argument is one]
    operand = True          # what comes next is an operand...
    may_not = True          # ... which may start with `not`
    may_close = False       # ... or the bracket closes (empty brackets, a trailing comma)
    after_is = False        # `is` may be followed by `not`
    keyword_candidate = None  # a call's argument that so far is one name
    pos, end = 0, len(text)
    while pos < end:
        m = _TOKEN.match(text, pos)
        if m is None:
            return None
        pos = m.end()
        kind = m.lastgroup
        token = m.group(kind)
        candidate, keyword_candidate = keyword_candidate, None
        if operand:
            if kind == "name" and token == "not":
                if not (may_not or after_is):
                    return None
                may_not, may_close, after_is = not after_is, False, False
                continue
            after_is = False
            if kind == "name":
                if token not in _CONSTANT_WORDS:
                    if token in _KEYWORDS:
                        return None
                    names.append(m)
                    if may_close and frames and frames[-1][1]:
                        keyword_candidate = m        # the start of a call's argument
                operand = False
            elif kind != "op":
                operand = False
            elif token == "(" or token == "[":
                frames.append([")" if token == "(" else "]", False, None, False])
                may_not, may_close = True, True
            elif token in _UNARY:
                may_not = may_close = False
            elif may_close and token == frames[-1][0]:
                frames.pop()
                operand = False
            else:
                return None
            continue
        # After an operand: an operator, a trailer, a comma or a closing bracket.
        if kind == "name":
            if token == "and" or token == "or":
                operand, may_not, may_close = True, True, False
            elif token == "is" or token == "in":
                operand, may_not, may_close, after_is = True, False, False, token == "is"
            elif token == "not":
                m = _TOKEN.match(text, pos)
                if m is None or m.group("name") != "in":
                    return None
                pos = m.end()
                operand, may_not, may_close = True, False, False
            else:
                return None
        elif kind != "op":
            return None
        elif token == ".":
            m = _TOKEN.match(text, pos)
            if m is None or m.lastgroup != "name" or m.group("name") in _KEYWORDS:
                return None
            pos = m.end()
        elif token == "(":
            frames.append([")", True, set(), False])
            operand, may_not, may_close = True, True, True
        elif token == "[":
            frames.append(["]", False, None, False])
            operand, may_not, may_close = True, True, False
        elif token in _BINARY:
            operand, may_not, may_close = True, False, False
        elif token == "=":
            frame = frames[-1] if frames else None
            if candidate is None or not frame[1] or candidate.group("name") in frame[2]:
                return None
            frame[2].add(candidate.group("name"))
            frame[3] = True
            names.remove(candidate)
            operand, may_not, may_close = True, True, False
        elif frames and (token == "," or token == frames[-1][0]):
            frame = frames[-1]
            if frame[1] and frame[2] and not frame[3]:
                return None          # a positional argument after a keyword argument
            frame[3] = False
            if token == ",":
                operand, may_not, may_close = True, True, True
            else:
                frames.pop()
        else:
            return None
    return names if not operand and not frames else None


@functools.lru_cache(maxsize=8192)
def to_python_by_ast(text, replacements):
    """:func:`to_python` through ``ast`` alone: the way every text can take, which
    the quick paths must agree with.

    >>> to_python_by_ast("___check_obj_id(L['x'], 5)", ())
    "has_id(L['x'], 5)"
    """
    tree = Rewriter(replacements).visit(parse_expr(text))
    unknown = free_names(tree) - KNOWN_NAMES
    if unknown:
        raise CannotTranslate(f"unknown names {sorted(unknown)} in: {text}")
    return ast.unparse(tree)


def read_literal(text):
    """The value of a literal in guard text (a key, a size list...).

    >>> read_literal("[2, 3]"), read_literal("'x'")
    ([2, 3], 'x')
    """
    # Keys and sizes are mostly plain ints, lists of ints and simple strings:
    # read without the parser, which this runs for every tensor and key.
    value = _plain_constant(text)
    if value is not _UNREAD:
        return value
    if _INT_LIST.fullmatch(text):
        return [None if t == "None" else int(t) for t in text[1:-1].split(", ")] if text != "[]" else []
    if text in _NAMED_CONSTANTS:
        return _NAMED_CONSTANTS[text]
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError) as exc:
        raise CannotTranslate(f"not a literal: {text}") from exc


_DIGITS = r"-?(?:0|[1-9][0-9]*)"       # what Python reads as an int literal
_INT = re.compile(_DIGITS)
_FLOAT = re.compile(_DIGITS + r"\.[0-9]+")
_INT_LIST = re.compile(r"\[(?:(?:{0}|None)(?:, (?:{0}|None))*)?\]".format(_DIGITS))   # sizes: None where dynamic
_NAMED_CONSTANTS = {"None": None, "True": True, "False": False}
_UNREAD = object()


def _plain_constant(text):
    """The value of ``text`` when it is an int, a float or a single-quoted string
    without escapes (read as Python reads it), else ``_UNREAD``."""
    if text[:1] == "'":         # (keys mostly)
        return text[1:-1] if _STRING_LITERAL.fullmatch(text) else _UNREAD
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    return _UNREAD


def accessor_argument(repr_text):
    """The argument text of an accessor repr such as "DictGetItemGuardAccessor('a')"."""
    start = repr_text.find("(")
    return repr_text[start + 1 : -1] if start >= 0 and repr_text.endswith(")") else ""


_INT_ARG = re.compile(r"(-?\d+)\)$")


def int_arg(repr_text):
    match = _INT_ARG.search(repr_text)
    if not match:
        raise CannotTranslate(f"no index in {repr_text}")
    return int(match.group(1))


# Modules the PRELUDE imports, so `module.Class` names a class directly.
IMPORTED_IN_PRELUDE = {"collections", "types", "itertools", "math", "torch", "weakref"}


# Builtin types with no public name.
SPECIAL_TYPES = {
    type(iter(())): "type(iter(()))",
    type(iter([])): "type(iter([]))",
    type(iter(range(0))): "type(iter(range(0)))",
}


def type_ref(cls):
    """A Python expression naming `cls`, or None when it has no importable name.

    >>> type_ref(dict), type_ref(torch.nn.Linear)
    ('dict', 'torch.nn.Linear')
    """
    hit = _TYPE_REFS.get(id(cls))
    if hit is not None and hit[0] is cls:
        return hit[1]
    ref = _type_ref(cls)
    if ref is not None and not ref.startswith("find_class("):
        # Names in builtins, types, torch and the prelude's modules are not rebound under the
        # guards; a user's module may rebind its names, so those are looked up each time.
        _TYPE_REFS.put(id(cls), (cls, ref))
    return ref


_TYPE_REFS = Memo()


def _type_ref(cls):
    if cls in SPECIAL_TYPES:
        return SPECIAL_TYPES[cls]
    qualname = getattr(cls, "__qualname__", "")
    module = getattr(cls, "__module__", "")
    if vars(builtins).get(qualname) is cls:
        return qualname
    name = _types_names().get(id(cls))
    if name is not None:
        return f"types.{name}"
    if not qualname or "<locals>" in qualname or not module:
        return None
    if module.split(".")[0] == "torch":
        for candidate in (f"torch.{qualname}", f"torch.nn.{qualname}", f"{module}.{qualname}"):
            if resolve_dotted(candidate) is cls:
                return candidate
    if module in IMPORTED_IN_PRELUDE and resolve_dotted(f"{module}.{qualname}") is cls:
        return f"{module}.{qualname}"
    try:
        found = sys.modules.get(module) or importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return None
    return f"find_class({module!r}, {qualname!r})" if found is cls else None


@functools.lru_cache(maxsize=1)
def _types_names():
    """id -> the first public name of each object in the types module (which holds them all,
    so the ids stay theirs)."""
    names = {}
    for name, value in vars(types).items():
        if not name.startswith("_"):
            names.setdefault(id(value), name)
    return names


def resolve_dotted(path):
    parts = path.split(".")
    try:
        obj = __import__(parts[0])
        for part in parts[1:]:
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return None
    return obj


def type_check(expr, cls, type_id, described):
    ref = type_ref(cls) if cls is not None and id(cls) == type_id else None
    if ref is None:
        return f"id(type({expr})) == {type_id}", described
    return f"type({expr}) is {ref}", ""


# The id (and described type) ending a ___check_type_id / ___check_obj_id text.
ID_TAIL = re.compile(r", (\d+)\)(?:, type=(.*))?$")


def type_from_text(text, manager):
    """The class a TYPE_MATCH-like text names by id, when the guarded example value has it."""
    match = ID_TAIL.search(text)
    if not match:
        raise CannotTranslate(f"no type id in: {text}")
    type_id = int(match.group(1))
    cls = manager.get_type_of_guarded_value() if manager is not None else None
    return type_id, cls, match.group(2) or ""


@functools.lru_cache(maxsize=8192)
def equals_value_text(text):
    """The constant of an EQUALS_MATCH text `<the guarded value> == <constant>`."""
    text = text.strip()
    left = "  " not in text and _QUICK_OPERAND.match(text)
    op = left and _QUICK_OPERATOR.match(text, left.end())
    if op and op.group(1) == "==" and _QUICK_OPERAND.fullmatch(text, op.end()):
        return text[op.end():]          # what the ast path finds, read on the text
    tree = parse_expr(text)
    if not (isinstance(tree, ast.Compare) and len(tree.ops) == 1 and isinstance(tree.ops[0], ast.Eq)):
        raise CannotTranslate(f"unexpected EQUALS_MATCH text: {text}")
    return ast.get_source_segment(text.strip(), tree.comparators[0])


def eval_constant(text):
    """The value an EQUALS_MATCH text names, when its repr reads back exactly."""
    # Mostly an int, a float or a plain string: read without compiling.
    value = _plain_constant(text)
    if value is not _UNREAD:
        return value
    code = to_python(text)
    try:
        value = eval(code, {"torch": torch, "math": __import__("math")})  # noqa: S307 - text torch wrote
    except Exception as exc:
        raise CannotTranslate(f"cannot read back {text}") from exc
    if repr(value) != text and code != text:
        raise CannotTranslate(f"{text} does not read back as itself")
    return value


def equals_expr(reader, value):
    """`reader == value` written the way a person would for bools and None."""
    if value is True:
        return reader
    if value is False:
        return f"not {reader}"
    if value is None:
        return f"{reader} is None"
    return f"{reader} == {value!r}"


class Simplify(ast.NodeTransformer):
    """`hasattr(...) == False` -> `not hasattr(...)`, `reader() == None` -> `reader() is None`:
    only where the left side is a bool predicate or a known reader, so == cannot be overridden."""

    PREDICATES = ("hasattr", "isinstance", "callable")
    READERS = ("saved_tensors_hooks_ids()", "torch.utils._device.CURRENT_DEVICE")

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) != 1 or not isinstance(node.ops[0], ast.Eq):
            return node
        left, right = node.left, node.comparators[0]
        if not isinstance(right, ast.Constant) or not (right.value is None or isinstance(right.value, bool)):
            return node
        predicate = isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id in self.PREDICATES
        if right.value is None and (predicate or ast.unparse(left) in self.READERS):
            return ast.Compare(left, [ast.Is()], [right])
        if predicate and right.value is True:
            return left
        if predicate and right.value is False:
            return ast.UnaryOp(ast.Not(), left)
        return node


@functools.lru_cache(maxsize=8192)
def simplify(expr):
    return ast.unparse(Simplify().visit(ast.parse(expr, mode="eval")).body)


@functools.lru_cache(maxsize=8192)
def finish(expr):
    """(``simplify(expr)``, its negation): what a guard check shows and the
    condition under which it fails. Guard rendering runs inside torch.compile,
    so the shapes most guards have (a call, ``not`` a call, one comparison
    against a name or a number) are handled on the text, the rest through ast.

    >>> finish("id(G['torch']) == 1234")
    ("id(G['torch']) == 1234", "id(G['torch']) != 1234")
    """
    quick = finish_quickly(expr)
    if quick is not None:
        return quick
    simple = simplify(expr)
    return simple, negate(simple)


def _bracketed(depth):
    """A regex for what may stand between brackets, nested at most ``depth`` deep: runs of
    plain characters, ``{}``, single-quoted strings without escapes and brackets.  Which
    bracket closes which is not checked: finish reads valid Python (and double spaces are
    refused before)."""
    inner = ""
    for level in range(depth + 1):
        # (?=(?P<r>x+))(?P=r) matches x+ without backtracking into it (an atomic group).
        run = r"(?=(?P<r{0}>[^()\[\]'\"{{}}#;:\\\n\t]+))(?P=r{0})".format(level)
        nested = r"|[(\[]%s[)\]]" % inner if inner else ""
        inner = r"(?:%s|\{\}|(?<![\w'])'[^'\\\n]*'(?! *')%s)*" % (run, nested)
    return inner


# A primary (a name with attributes, calls and subscripts) whose top-level names are no
# keywords; what its brackets hold is taken as it is (torch and this module write it as
# ast.unparse would).
_TOP_NAME = r"(?!(?:%s)\b)[A-Za-z_][A-Za-z0-9_]*" % "|".join(keyword.kwlist)
_BRACKETS = r"[(\[]%s[)\]]" % _bracketed(6)
_PRIMARY = r"{0}(?:\.{0}|{1})*".format(_TOP_NAME, _BRACKETS)
# Or a constant that ast.unparse writes as it is: an int, a float (checked by repr), a
# printable string without quotes or backslashes; or an empty list.
_QUICK_OPERAND = re.compile(_PRIMARY + r"|(?:0|[1-9][0-9]*)(?:\.[0-9]+)?|'[ -&(-\[\]-~]*'|None|True|False|\[\]")
_QUICK_OPERATOR = re.compile(r" (is not|is|not in|in|==|!=|<=|>=|<|>) ")
# A call of a predicate, not a subscript of it: its brackets open with (.
_QUICK_PREDICATE = re.compile(r"(?:%s)(?=\()%s" % ("|".join(Simplify.PREDICATES), _BRACKETS))
_OPPOSITE = {"is": "is not", "is not": "is", "in": "not in", "not in": "in"}


def finish_quickly(expr):
    """What ``finish`` gives, worked out on the text, or None where it needs ast: a
    primary, ``not`` a primary, or one comparison between primaries and constants.

    >>> finish_quickly("x == 1"), finish_quickly("x  == 1")
    (('x == 1', 'x != 1'), None)
    """
    if "  " in expr:
        return None                     # ast.unparse writes single spaces
    if " and " in expr:
        return _finish_conjunction(expr)
    equals = expr.count("==")
    if expr.startswith("not "):
        if equals or not _QUICK_OPERAND.fullmatch(expr, 4) or not _is_primary(expr[4:]):
            return None
        return expr, expr[4:]
    left = _QUICK_OPERAND.match(expr)
    if left is None:
        return None
    if left.end() == len(expr):
        if equals or not _is_primary(expr):
            return None                 # Simplify may rewrite an inner ==; a lone constant
        return expr, "not " + expr
    op = _QUICK_OPERATOR.match(expr, left.end())
    if op is None or not _QUICK_OPERAND.fullmatch(expr, op.end()):
        return None
    left, op, right = left.group(), op.group(1), expr[op.end():]
    if equals > (op == "==") or not (_canonical_number(left) and _canonical_number(right)):
        return None
    if op == "==":
        if right in ("None", "True", "False"):
            return _finish_constant_test(left, right)
        if right[0] in "'0123456789":          # a constant, whose __ne__ is the opposite of __eq__
            return expr, f"{left} != {right}"
        return expr, "not " + expr
    if op in _OPPOSITE:
        return expr, f"{left} {_OPPOSITE[op]} {right}"
    return expr, "not " + expr


def _finish_conjunction(expr):
    """``a and b ...`` whose operands each finish quickly: ast simplifies each alone and
    negates the whole.  ast.unparse brackets a `not` after the first operand and a
    comparison after the second.  (A split inside brackets or a string leaves a part that
    does not finish quickly.)"""
    simple = []
    for index, part in enumerate(expr.split(" and ")):
        finished = finish_quickly(part)
        if finished is None:
            return None
        text = finished[0]
        if index and text.startswith("not ") or index > 1 and not _QUICK_OPERAND.fullmatch(text):
            text = f"({text})"
        simple.append(text)
    simple = " and ".join(simple)
    return simple, f"not ({simple})"


def _is_primary(operand):
    """Whether what _QUICK_OPERAND matched is a primary, not a constant."""
    return operand[0] not in "'0123456789[" and operand not in ("None", "True", "False")


def _canonical_number(operand):
    """False for a float that ast.unparse writes otherwise (``1.50``)."""
    return not ("." in operand and operand[0].isdigit()) or repr(float(operand)) == operand


def _finish_constant_test(left, right):
    """``left == None/True/False`` as Simplify writes it, and its negation."""
    predicate = _QUICK_PREDICATE.fullmatch(left) is not None
    if right == "None" and (predicate or left in Simplify.READERS):
        return left + " is None", left + " is not None"
    if predicate and right == "True":
        return left, "not " + left
    if predicate and right == "False":
        return "not " + left, left
    return left + " == " + right, left + " != " + right


@functools.lru_cache(maxsize=8192)
def negate(expr):
    """`not (expr)` without a double negation: the condition under which a guard fails."""
    tree = ast.parse(expr, mode="eval").body
    if isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.Not):
        return ast.unparse(tree.operand)
    if isinstance(tree, ast.Compare) and len(tree.ops) == 1:
        op = tree.ops[0]
        # Identity and membership invert exactly; == only against a plain constant, whose
        # __ne__ is the opposite of its __eq__.
        opposite = {ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
        if isinstance(tree.comparators[0], ast.Constant):
            opposite[ast.Eq] = ast.NotEq
        if type(op) in opposite:
            return ast.unparse(ast.Compare(tree.left, [opposite[type(op)]()], tree.comparators))
    return ast.unparse(ast.UnaryOp(ast.Not(), tree))


def length_from_text(text):
    if text.startswith("not "):
        return 0
    return int(text.rsplit("==", 1)[1])


def getattr_expr(base, name):
    if name.isidentifier() and not keyword.iskeyword(name):
        return f"{base}.{name}"
    return f"getattr({base}, {name!r})"


def subscript_key(source, parent_source, accessor_text):
    try:
        tree = parse_expr(source)
        if isinstance(tree, ast.Subscript) and ast.dump(tree.value) == ast.dump(parse_expr(parent_source)):
            return ast.literal_eval(tree.slice)
    except (CannotTranslate, ValueError):
        pass
    return read_literal(accessor_argument(accessor_text))


@functools.lru_cache(maxsize=256)
def dispatch_keys_expr(names_text):
    names = [n.strip() for n in names_text.split(",") if n.strip()]
    expr = f"dispatch_key_set({', '.join(repr(n) for n in names)})"
    built = torch._C.DispatchKeySet(torch._C.DispatchKey.Undefined)
    try:
        for name in names:
            built = built | torch._C.DispatchKeySet(getattr(torch._C.DispatchKey, name))
    except AttributeError as exc:
        raise CannotTranslate(f"unknown dispatch key in {names_text}") from exc
    if repr(built) != f"DispatchKeySet({names_text})":
        raise CannotTranslate(f"dispatch keys do not read back: {names_text}")
    return expr


TENSOR_TAIL = re.compile(
    r"^(?P<pytype>[^,]+), DispatchKeySet\((?P<keys>[^)]*)\), (?P<dtype>torch\.\w+), "
    r"device=(?P<device>None|-?\d+), requires_grad=(?P<grad>True|False), "
    r"size=(?P<size>\[[^\]]*\]), stride=(?P<stride>\[[^\]]*\])\)$"
)


def tensor_match(text, node):
    prefix = f"check_tensor({node.source}, "
    if not text.startswith(prefix):
        raise CannotTranslate(f"unexpected TENSOR_MATCH text: {text}")
    cls = node.manager.get_type_of_guarded_value()
    tail = text[len(prefix):]
    # Tensors of a program share a few dtypes, sizes and dispatch keys: tails are looked up
    # (with the class, so that its id stays its own).
    hit = _TENSOR_TAILS.get((tail, id(cls)))
    if hit is None:
        hit = (cls, _tensor_arguments(tail, cls, text))
        if not hit[1].startswith("find_class("):      # a name its module may rebind is read anew
            _TENSOR_TAILS.put((tail, id(cls)), hit)
    return f"check_tensor({node.expr}, {hit[1]}"


def _tensor_arguments(tail, cls, text):
    match = TENSOR_TAIL.match(tail)
    if not match:
        raise CannotTranslate(f"unexpected TENSOR_MATCH text: {text}")
    if cls.__qualname__ != match.group("pytype"):
        raise CannotTranslate(f"tensor type {match.group('pytype')} is not {cls}")
    # A class with no importable name (defined in a function) is compared by identity.
    pytype = type_ref(cls) or f"{id(cls)}"
    if not isinstance(resolve_dotted(match.group("dtype")), torch.dtype):
        raise CannotTranslate(f"unknown dtype {match.group('dtype')}")
    size, stride = read_literal(match.group("size")), read_literal(match.group("stride"))
    keys = dispatch_keys_expr(match.group("keys"))
    return (
        f"{pytype}, {match.group('dtype')}, device_index={match.group('device')}, "
        f"requires_grad={match.group('grad')}, size={size!r}, stride={stride!r}, dispatch_keys={keys})"
    )


_TENSOR_TAILS = Memo()


# GLOBAL_STATE's settings: the key torch records each under -> the reader whose
# value equals the recorded one. Releases record other sets (2.15 adds
# cuda_matmul_precision; 2.9 records cuBLAS reductions as flags, which the
# prelude's readers give there): a guard is read by the keys it has.
GLOBAL_STATE_READERS = {
    "grad_mode": "torch.is_grad_enabled()",
    "torch_function": "torch._C._is_torch_function_enabled()",
    "torch_function_all_disabled": "torch._C._is_torch_function_all_disabled()",
    "deterministic_algorithms": "torch.are_deterministic_algorithms_enabled()",
    "deterministic_algorithms_warn_only": "torch.is_deterministic_algorithms_warn_only_enabled()",
    "num_threads": "torch.get_num_threads()",
    "allow_tf32": "cuda_matmul_allows_tf32()",
    "allow_fp16_reduce": "cublas_fp16_reduction()",
    "allow_bf16_reduce": "cublas_bf16_reduction()",
}
# cuda_matmul_precision's numbers (ATen's Float32Precision) -> the name torch's
# fp32 precision getter gives
FP32_PRECISIONS = {0: "none", 1: "ieee", 2: "tf32", 3: "bf16"}


@functools.lru_cache(maxsize=64)
def global_state_checks(recorded):
    """GLOBAL_STATE's recorded state (its JSON, torch_compat.recorded_global_state)
    as Python expressions, one per setting (a tuple: every cache entry has this
    guard, mostly with the same state, so it is cached).

    >>> global_state_checks('{"grad_mode": true, "num_threads": 2}')
    ('torch.is_grad_enabled()', 'torch.get_num_threads() == 2')
    """
    state = json.loads(recorded)
    checks = [equals_expr(reader, state.pop(key)) for key, reader in GLOBAL_STATE_READERS.items()
              if key in state]
    if "cuda_matmul_precision" in state:
        name = FP32_PRECISIONS.get(state.pop("cuda_matmul_precision"))
        if name is None:
            raise CannotTranslate(f"unknown cuda matmul precision in {recorded}")
        checks.append(f"cuda_matmul_precision() == {name!r}")
    if "default_dtype" in state:
        dtype = SCALAR_TYPES.get(state.pop("default_dtype"))
        if dtype is None:
            raise CannotTranslate(f"unknown default dtype in {recorded}")
        checks.append(f"torch.get_default_dtype() == {dtype}")
    if "autocast_state" in state:
        checks.append(_autocast_check(state.pop("autocast_state"), recorded))
    if state:
        raise CannotTranslate(f"unknown global state {sorted(state)}")
    return tuple(checks)



def _autocast_check(autocast, recorded):
    devices = {}
    for device, enabled, number in zip(AUTOCAST_DEVICES, autocast["enabled"], autocast["dtype"]):
        if enabled:
            name = SCALAR_TYPES.get(number)
            if name is None:
                raise CannotTranslate(f"unknown autocast dtype {number}")
            devices[device] = f"(True, {name})"
    if len(autocast["enabled"]) != len(AUTOCAST_DEVICES):
        raise CannotTranslate(f"unexpected autocast devices in {recorded}")
    expected = "{" + ", ".join(f"{d!r}: {v}" for d, v in devices.items()) + "}"
    return f"autocast_state_matches({expected}, {autocast['cached_enabled']!r})"


def clear_caches():
    """Forget every cached translation (the overhead bench starts each round cold)."""
    for value in list(globals().values()):
        if callable(getattr(value, "cache_clear", None)):
            value.cache_clear()
    for memo in _MEMOS:
        memo.clear()
