"""Turn ``ast`` trees back into Python source text.

:func:`render` prints a tree built by the decompiler (or by ``ast.parse``) as
source that re-parses to the same tree, modulo forms that compile to the same
bytecode (a negative number constant prints as ``-1``; a NaN constant as a
constant-folded expression). The text depends only on the tree, the layout
and the target version, never on the host interpreter: ``ast.unparse`` is not
used, and strings are escaped with a fixed character table.

Layouts:

``"lines"`` (the default) keeps line numbers: each statement is printed at its
``lineno`` (blank lines fill gaps, simple statements on one line join with
``; ``, a block whose statements all sit on the header's line stays on it),
and a sub-expression whose ``lineno`` lies below the current line moves there
(a plain line break inside brackets, a backslash continuation outside).
Nodes without a line number go on the next free line.

``"compact"`` ignores line numbers: one statement a line, a blank line around
top-level (and class-level) definitions.

``target`` is the Python version the text must be valid for. It decides how
f-strings are quoted (before 3.12 an f-string cannot reuse its own quote or
hold a backslash in a replacement field), how a starred subscript is written,
and whether 3.13's docstring cleaning may be relied on to indent docstrings.

Example::

    >>> import ast
    >>> from depyf.decompiler.render import render
    >>> print(render(ast.parse("if x:\\n    y = (-1) ** 2\\nelse: z = f'{a!r:>{w}}'")), end="")
    if x:
        y = (-1) ** 2
    else: z = f'{a!r:>{w}}'
"""
from __future__ import annotations

import ast
import math
import re
import struct
import unicodedata
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from .astcompat import Interpolation, fill_missing

__all__ = ["render", "LAYOUTS", "DEFAULT_TARGET"]

LAYOUTS = ("lines", "compact")
#: The default target: output valid for every supported version where the
#: tree allows it (3.8's f-string and subscript rules).
DEFAULT_TARGET = (3, 8)

# -- precedence ----------------------------------------------------------------------------
# A node needs parentheses when its own level is below the level its position
# asks for. Ordered loosest to tightest.
(NAMED, TUPLE, YIELD, TEST, OR, AND, NOT, CMP, BOR, BXOR, BAND, SHIFT, ARITH, TERM,
 FACTOR, POWER, AWAIT, ATOM) = range(1, 19)

_BINOP = {
    "Add": ("+", ARITH), "Sub": ("-", ARITH),
    "Mult": ("*", TERM), "MatMult": ("@", TERM), "Div": ("/", TERM),
    "FloorDiv": ("//", TERM), "Mod": ("%", TERM),
    "Pow": ("**", POWER),
    "LShift": ("<<", SHIFT), "RShift": (">>", SHIFT),
    "BitOr": ("|", BOR), "BitXor": ("^", BXOR), "BitAnd": ("&", BAND),
}
_UNARY = {"Invert": ("~", FACTOR), "Not": ("not ", NOT), "UAdd": ("+", FACTOR),
          "USub": ("-", FACTOR)}
_BOOLOP = {"And": ("and", AND), "Or": ("or", OR)}
_CMPOP = {"Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">=",
          "Is": "is", "IsNot": "is not", "In": "in", "NotIn": "not in"}

# Pattern levels: ``p as n`` < ``p | q`` < everything else.
_P_AS, _P_OR, _P_ATOM = 0, 1, 2

_SIMPLE_STMTS = frozenset({
    "Expr", "Assign", "AugAssign", "AnnAssign", "Return", "Delete", "Pass", "Break",
    "Continue", "Import", "ImportFrom", "Global", "Nonlocal", "Raise", "Assert",
    "TypeAlias",
})
_DEFS = frozenset({"FunctionDef", "AsyncFunctionDef", "ClassDef"})
_INDENT = "    "
#: compact layout: the longest line a call is written on before it gets an argument a line
WRAP = 100
_NAME = ast.Name


def _bracketed_boolop(node: ast.BoolOp, ctx) -> bool:
    """An and/or written where ``ctx`` binds tighter: in brackets."""
    return _BOOLOP[type(node.op).__name__][1] < ctx


def _lineno(node) -> Optional[int]:
    value = getattr(node, "lineno", None)
    if type(value) is int:      # the usual case, checked first: this runs for every node
        return value
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _first_line(stmt) -> Optional[int]:
    """Where a statement's text starts: its first decorator, else its lineno."""
    decorators = getattr(stmt, "decorator_list", None)
    if not decorators:
        return _lineno(stmt)
    lines = [_lineno(d) for d in decorators]
    lines = [n for n in lines + [_lineno(stmt)] if n is not None]
    return min(lines) if lines else None


class _Impossible(Exception):
    """This quoting choice cannot express the f-string; try another."""


# -- constants -----------------------------------------------------------------------------

_INF = "1e309"  # overflows to inf on every IEEE platform; folded at compile time
_NAN_TEXT = "(%s-%s)" % (_INF, _INF)
_MACHINE_NAN = float("inf") - float("inf")  # what the compiler folds _NAN_TEXT to here
_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_QUOTES = ("'", '"', "'''", '"""')


def _printable(ch: str) -> bool:
    """Printable by a fixed table (Unicode 3.2, frozen in every CPython), so the
    escaping never depends on the host's Unicode version."""
    code = ord(ch)
    if code < 0x80:
        return 0x20 <= code < 0x7F
    return unicodedata.ucd_3_2_0.category(ch)[0] not in "CZ"


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return "\\x%02x" % code
    if code < 0x10000:
        return "\\u%04x" % code
    return "\\U%08x" % code


# Printable ASCII but quotes and backslash: always written as is. Runs of these
# are copied in one piece; only the other characters take the careful path.
_PLAIN = "[ !#-&(-\\[\\]-~]"
_ALL_PLAIN = re.compile(_PLAIN + "*")
_NOT_PLAIN = re.compile("[^" + _PLAIN[1:])


def _quote_body(value: str, quote: str, keep_newlines: bool = False) -> str:
    """``value`` escaped to sit between ``quote`` delimiters."""
    if _ALL_PLAIN.fullmatch(value):
        return value
    out = []
    last = len(value) - 1
    done = 0
    for match in _NOT_PLAIN.finditer(value):
        i = match.start()
        if done < i:
            out.append(value[done:i])
        done = i + 1
        ch = value[i]
        if ch == "\n" and keep_newlines:
            out.append(ch)
        elif ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch == quote[0]:
            if len(quote) == 1 or i == last or value[i + 1] == ch:
                out.append("\\" + ch)
            else:
                out.append(ch)
        elif _printable(ch):
            out.append(ch)
        else:
            out.append(_escape_char(ch))
    out.append(value[done:])
    return "".join(out)


def _pick_quote(value) -> str:
    if isinstance(value, bytes):
        return '"' if b"'" in value and b'"' not in value else "'"
    return '"' if "'" in value and '"' not in value else "'"


def _same_expression(a: str, b: str) -> bool:
    """Whether two expression texts parse to the same tree.

    >>> _same_expression("x+1", "x + 1"), _same_expression("x", "y")
    (True, False)
    """
    try:
        return ast.dump(ast.parse(a.strip(), mode="eval")) == ast.dump(ast.parse(b.strip(), mode="eval"))
    except SyntaxError:
        return False


def _std_literal(value, prefix: str = "") -> str:
    """A string or bytes literal, like ``repr`` but host independent."""
    if isinstance(value, bytes):
        return repr(value)  # ASCII-only, the same on every host
    quote = _pick_quote(value)
    return prefix + quote + _quote_body(value, quote) + quote


def _raw_body(value, quote: str) -> Optional[str]:
    """``value`` written raw (no backslash) between ``quote``s; None when that
    is impossible. For text inside a pre-3.12 f-string replacement field."""
    if isinstance(value, bytes):
        try:
            value = value.decode("ascii")
        except UnicodeDecodeError:
            return None
    for ch in value:
        if ch in "\\\0\r" or "\ud800" <= ch <= "\udfff":
            return None
    if len(quote) == 1 and (quote in value or "\n" in value):
        return None
    if len(quote) == 3 and (quote in value or value.endswith(quote[0])):
        return None
    return value


def _fits(token: str, enclosing: Tuple[str, ...]) -> bool:
    """Can ``token`` (a whole string literal) sit in the replacement field of
    pre-3.12 f-strings delimited by ``enclosing``? The old tokenizer reads the
    outer f-string as one plain string first, so no enclosing delimiter may
    appear in it, and a line break only inside triple quotes."""
    if any(quote in token for quote in enclosing):
        return False
    return "\n" not in token or all(len(quote) == 3 for quote in enclosing)


def _int_text(value: int) -> Tuple[str, int]:
    # Past ~3000 digits hex: int<->str conversion of long decimals is limited
    # (3.11+, 4300 digits) and the limit must not decide the output.
    digits = hex(abs(value)) if value.bit_length() > 10000 else str(abs(value))
    return ("-" + digits, FACTOR) if value < 0 else (digits, ATOM)


def _float_text(value: float) -> Tuple[str, int]:
    """Source that folds to exactly ``value`` (sign of zero and of NaN kept)."""
    if math.isnan(value):
        same_sign = math.copysign(1.0, value) == math.copysign(1.0, _MACHINE_NAN)
        return (_NAN_TEXT, ATOM) if same_sign else ("-" + _NAN_TEXT, FACTOR)
    if math.copysign(1.0, value) < 0:
        text, _ = _float_text(-value)
        return "-" + text, FACTOR
    if math.isinf(value):
        return _INF, ATOM
    return repr(value), ATOM


def _same_float(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b) and math.copysign(1, a) == math.copysign(1, b)
    return struct.pack("<d", a) == struct.pack("<d", b)


def _complex_text(value: complex) -> Tuple[str, int]:
    """Source for a complex constant that constant-folds to exactly ``value``:
    the first of a few candidate spellings whose value matches bit for bit."""
    real, imag = value.real, value.imag

    def short(x: float) -> str:
        text, _ = _float_text(x)
        return text[:-2] if text.endswith(".0") else text

    if math.isnan(imag):
        imag_pos = "(%sj-%sj)" % (_INF, _INF)
        imag_abs = imag
    else:
        imag_abs = abs(imag)
        imag_pos = _INF + "j" if math.isinf(imag_abs) else repr(complex(0.0, imag_abs))
    candidates = [imag_pos, "-" + imag_pos]
    for r_text in (short(real), _float_text(real)[0]):
        candidates += ["(%s+%s)" % (r_text, imag_pos), "(%s-%s)" % (r_text, imag_pos)]
    for r_text in (short(-real), _float_text(-real)[0]):
        candidates += ["-(%s+%s)" % (r_text, imag_pos), "-(%s-%s)" % (r_text, imag_pos)]
    for text in candidates:
        got = eval(compile(text, "<complex>", "eval"), {"__builtins__": {}})  # constants only
        got = complex(got)
        if _same_float(got.real, real) and _same_float(got.imag, imag):
            return text, (FACTOR if text.startswith("-") else ATOM)
    text = "(%s+%s)" % (short(real), imag_pos)  # NaN payloads: value-equal is the best
    return text, ATOM


def cleandoc_313(doc: str) -> str:
    """What CPython 3.13's compiler makes of a docstring (``_PyCompile_CleanDoc``).

    >>> cleandoc_313("  First.\\n    more\\n      deeper")
    'First.\\nmore\\n  deeper'
    """
    doc = doc.expandtabs()
    lines = doc.split("\n")
    margins = [len(l) - len(l.lstrip(" ")) for l in lines[1:] if l.lstrip(" ")]
    margin = min(margins) if margins else 0
    first = lines[0].lstrip(" ")
    if first == lines[0] and margin == 0:
        return doc
    rest = [l[min(margin, len(l) - len(l.lstrip(" "))):] for l in lines[1:]]
    return "\n".join([first] + rest)


# -- the renderer --------------------------------------------------------------------------

class _Delim:
    __slots__ = ("renderer", "closing")

    def __init__(self, renderer, opening: str, closing: str):
        self.renderer = renderer
        self.closing = closing
        renderer._open(opening)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.renderer._close(self.closing)


class _NoDelim:
    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


_NO_DELIM = _NoDelim()


class _Renderer:
    def __init__(self, layout: str, target: Sequence[int],
                 statement_lines: Optional[Dict[ast.stmt, int]] = None):
        if layout not in LAYOUTS:
            raise ValueError("layout must be one of %s, not %r" % (LAYOUTS, layout))
        self.faithful = layout == "lines"
        self.target = (int(target[0]), int(target[1]))
        self._lines: List[str] = []   # finished lines
        self._cur: List[str] = []     # pieces of the line being written
        self._level = 0               # block indentation
        self._depth = 0               # open brackets
        self._nobreak = 0             # > 0: no line breaks (inside f-strings)
        self._fresh = False           # just broke a line inside an expression
        self._fq: Tuple[str, ...] = ()  # quotes of enclosing pre-3.12-style f-strings
        self._fprefix = "f"             # "t" while a t-string (3.14+) is written
        self._join = None             # (block, line) where a simple statement ended
        self._inline = 0              # 0 off, 1 first statement, 2 later ones
        #: [body, index of the statement being written, the enclosing body's list]
        self._where: Optional[list] = None
        self._blank = False           # compact: a blank line before the next statement
        #: statement -> the line its text starts on, when asked for (render's argument)
        self.statement_lines = statement_lines
        self._mark: Optional[ast.stmt] = None   # the statement whose line starts next

    # -- output ----------------------------------------------------------------------------

    @property
    def line(self) -> int:
        return len(self._lines) + 1

    def _w(self, text: str) -> None:
        if not text:
            return
        self._fresh = False
        if "\n" not in text:
            self._cur.append(text)
            return
        parts = text.split("\n")
        self._cur.append(parts[0])
        for part in parts[1:]:
            self._lines.append("".join(self._cur))
            self._cur = [part] if part else [""]

    def _ws(self, text: str) -> None:
        """A separator: its leading blanks go when a line break just happened."""
        self._w(text.lstrip(" ") if self._fresh else text)

    def _newline(self) -> None:
        self._lines.append("".join(self._cur))
        self._cur = []

    def text(self) -> str:
        lines = self._lines + ["".join(self._cur)] if self._cur else self._lines
        return "\n".join(lines) + "\n" if lines else ""

    def _begin_line(self, lineno: Optional[int]) -> None:
        """Start a statement line: the next line, or ``lineno`` if later."""
        lines = self._lines
        if self._cur:
            lines.append("".join(self._cur))
        if self.faithful and lineno is not None:
            gap = lineno - len(lines) - 1
            if gap > 0:
                lines.extend([""] * gap)      # blank lines down to ``lineno``
                self._cur = []
        elif self._blank and lines:
            lines.append("")
        self._blank = False
        self._cur = [_INDENT * self._level]
        self._fresh = False
        if self._mark is not None:
            self.statement_lines[self._mark] = len(lines) + 1
            self._mark = None

    def _wants_break(self, node) -> bool:
        if not self.faithful or self._nobreak:
            return False
        lineno = _lineno(node)
        return lineno is not None and lineno > len(self._lines) + 1

    def _comma(self, nxt) -> None:
        """The comma before ``nxt`` (None: nothing that moves), its blank left
        out when ``nxt`` will start a line of its own."""
        # (_wants_break and _w, inlined: this runs between most items)
        self._fresh = False
        if nxt is not None and self.faithful and not self._nobreak:
            lineno = getattr(nxt, "lineno", None)
            if type(lineno) is not int:
                lineno = _lineno(nxt)
            if lineno is not None and lineno > len(self._lines) + 1:
                self._cur.append(",")
                return
        self._cur.append(", ")

    def _brk(self, node) -> None:
        """Move down to ``node``'s line, if it is below the current one."""
        if not self.faithful or self._nobreak:
            return
        target = _lineno(node)
        if target is None or target <= len(self._lines) + 1:
            return
        if self._depth == 0 and not "".join(self._cur).strip():
            return  # a continuation can't start a statement's line
        if self._cur:
            self._cur[-1] = self._cur[-1].rstrip(" ")
        while self.line < target:
            if self._depth == 0:
                self._w(" \\" if "".join(self._cur).strip() else "\\")
            self._newline()
        self._cur = [_INDENT * (self._level + 1)]
        self._fresh = True

    def _open(self, opening: str) -> None:
        """An opening bracket; :meth:`_close` writes its partner (a pair of
        calls, cheaper than ``_delim``'s context manager where that is hot)."""
        self._fresh = False
        self._cur.append(opening)
        self._depth += 1

    def _close(self, closing: str) -> None:
        self._depth -= 1
        self._fresh = False
        self._cur.append(closing)

    def _delim(self, opening: str, closing: str, condition: bool = True):
        """``with self._delim("(", ")", cond):`` writes the brackets around the body
        when ``cond`` (a plain class: this runs for most expressions)."""
        return _Delim(self, opening, closing) if condition else _NO_DELIM

    def _capture(self, fn: Callable[[], None]) -> str:
        """Run ``fn`` into a string, without line breaks."""
        saved = self._lines, self._cur, self._depth, self._fresh
        self._lines, self._cur = [], []
        self._nobreak += 1
        try:
            fn()
            return "\n".join(self._lines + ["".join(self._cur)])
        finally:
            self._lines, self._cur, self._depth, self._fresh = saved
            self._nobreak -= 1

    # -- statements ------------------------------------------------------------------------

    def module(self, body: Sequence[ast.stmt], doc: bool = True) -> None:
        self._stmts(body, doc=doc)

    def _stmts(self, body: Sequence[ast.stmt], doc: bool = False,
               in_class: bool = False) -> None:
        key = object()
        outer = self._where
        where = self._where = [body, 0, outer]
        previous_def = False
        faithful = self.faithful
        marking = self.statement_lines is not None
        for i, stmt in enumerate(body):
            where[1] = i
            if not faithful:
                is_def = type(stmt).__name__ in _DEFS
                if i and (is_def or previous_def) and (self._level == 0 or in_class):
                    self._blank = True
                previous_def = is_def
            # (_stmt, inlined: this runs for every statement)
            cls = type(stmt)
            try:
                method, simple = _S_KINDS[cls]
            except KeyError:
                method, simple = _S_KINDS[cls] = (_method_for("s_", cls),
                                                  cls.__name__ in _SIMPLE_STMTS)
            if simple:
                self._place_simple(stmt, key)
                if marking:
                    self.statement_lines[stmt] = len(self._lines) + 1
                if doc and i == 0 and _is_docstring(stmt):
                    self._docstring(stmt)
                else:
                    method(self, stmt)
                self._join = (key, len(self._lines) + 1)
            else:
                self._join = None
                if marking:
                    self._mark = stmt       # (its header line starts in _begin_line)
                method(self, stmt)
                self._join = None
        self._where = outer

    def _following(self) -> Optional[int]:
        """The first known line of what follows the statement being written (in
        its body, else after the enclosing statement...); None: nothing known.
        (Worked out when asked, for the rare docstring that needs it.)"""
        where = self._where
        while where is not None:
            body, i, where = where
            for stmt in body[i + 1:]:
                start = _first_line(stmt)
                if start is not None:
                    return start
        return None

    def _place_simple(self, node, key) -> None:
        inline = self._inline
        if inline == 1:
            self._w(" ")
            self._inline = 2
        elif inline == 2:
            self._w("; ")
        elif not self.faithful:
            self._begin_line(None)
        else:
            lineno = getattr(node, "lineno", None)
            if type(lineno) is not int:     # (_lineno's usual case first, inlined)
                lineno = _lineno(node)
            line = len(self._lines) + 1
            if lineno is not None and lineno == line and self._join == (key, line):
                self._w("; ")
            else:
                self._begin_line(lineno)

    def _header(self, lineno: Optional[int]) -> None:
        self._join = None
        self._begin_line(lineno if self.faithful else None)

    def _block(self, body: Sequence[ast.stmt], doc: bool = False,
               in_class: bool = False) -> None:
        """The body after a header that ends with ``:`` on the current line."""
        body = list(body) or [ast.Pass()]
        line = len(self._lines) + 1
        inline = self.faithful          # (a loop, not all(): most blocks fail at once)
        if inline:
            for s in body:
                if type(s).__name__ not in _SIMPLE_STMTS or _lineno(s) != line:
                    inline = False
                    break
        if inline:
            saved = self._inline
            self._inline = 1
            try:
                self._stmts(body, doc=doc)
            finally:
                self._inline = saved
            return
        self._level += 1
        try:
            self._stmts(body, doc=doc, in_class=in_class)
        finally:
            self._level -= 1

    def _clause(self, body: Sequence[ast.stmt], lineno: Optional[int] = None) -> None:
        """Put an ``else:``/``except``/``finally:``/``case`` header on its line:
        its own lineno, else just above its first statement, else the next."""
        if self.faithful and lineno is None and body:
            first = _first_line(body[0])
            if first is not None and first - 1 > self.line:
                lineno = first - 1
        self._header(lineno)

    def _docstring(self, node: ast.Expr) -> None:
        value = node.value.value
        prefix = "u" if getattr(node.value, "kind", None) == "u" else ""
        newlines = value.count("\n")
        multi = False
        if newlines:
            if not self.faithful:
                multi = True
            else:
                end = getattr(node.value, "end_lineno", None)
                if isinstance(end, int) and _lineno(node) == self.line:
                    multi = end - self.line == newlines
                else:
                    limit = self._following()
                    multi = limit is None or self.line + newlines < limit
        if multi and self.target >= (3, 13):
            # 3.13 strips the common indentation of docstrings: indent ours to
            # the block when that strips back to exactly this value.
            indent = _INDENT * self._level
            lines = value.split("\n")
            indented = "\n".join(lines[:1] + [indent + l if l.strip(" ") else l
                                              for l in lines[1:]])
            if indent and cleandoc_313(indented) == value:
                value = indented
        self._w(prefix + '"""' + _quote_body(value, '"""', keep_newlines=multi) + '"""')

    def _decorators(self, node) -> None:
        for decorator in node.decorator_list:
            self._header(_lineno(decorator))
            self._w("@")
            self._named(decorator)

    def _type_params(self, node) -> None:
        params = getattr(node, "type_params", None) or []
        if params:
            with self._delim("[", "]"):
                self._items(params, None)

    def s_FunctionDef(self, node, keyword: str = "def") -> None:
        self._decorators(node)
        self._header(_lineno(node))
        self._w(keyword + " " + node.name)
        self._type_params(node)
        with self._delim("(", ")"):
            self._arguments(node.args)
        if node.returns is not None:
            self._w(" -> ")
            self._expr(node.returns, TEST)
        self._w(":")
        self._block(node.body, doc=True)

    def s_AsyncFunctionDef(self, node) -> None:
        self.s_FunctionDef(node, "async def")

    def s_ClassDef(self, node) -> None:
        self._decorators(node)
        self._header(_lineno(node))
        self._w("class " + node.name)
        self._type_params(node)
        if node.bases or node.keywords:
            with self._delim("(", ")"):
                self._items(list(node.bases) + list(node.keywords), TEST)
        self._w(":")
        self._block(node.body, doc=True, in_class=True)

    def s_Return(self, node) -> None:
        self._w("return")
        if node.value is not None:
            self._w(" ")
            self._value(node.value, yield_ok=False)

    def s_Delete(self, node) -> None:
        self._w("del ")
        self._items(node.targets, TEST)

    def s_Assign(self, node) -> None:
        for target in node.targets:
            self._expr(target, TUPLE)
            self._ws(" = ")
        self._value(node.value)

    def s_TypeAlias(self, node) -> None:
        self._w("type ")
        self._expr(node.name, ATOM)
        self._type_params(node)
        self._ws(" = ")
        self._expr(node.value, TEST)

    def s_AugAssign(self, node) -> None:
        self._expr(node.target, ATOM)
        self._ws(" %s= " % _BINOP[type(node.op).__name__][0])
        self._value(node.value, star_ok=False)

    def s_AnnAssign(self, node) -> None:
        with self._delim("(", ")", not node.simple and isinstance(node.target, ast.Name)):
            self._expr(node.target, ATOM)
        self._w(": ")
        self._expr(node.annotation, TEST)
        if node.value is not None:
            self._ws(" = ")
            self._value(node.value, star_ok=False)

    def s_For(self, node, keyword: str = "for") -> None:
        self._header(_lineno(node))
        self._w(keyword + " ")
        self._expr(node.target, TUPLE)
        self._ws(" in ")
        self._value(node.iter, yield_ok=False, star_ok=False)
        self._w(":")
        self._block(node.body)
        self._else(node.orelse)

    def s_AsyncFor(self, node) -> None:
        self.s_For(node, "async for")

    def _else(self, orelse) -> None:
        if orelse:
            self._clause(orelse)
            self._w("else:")
            self._block(orelse)

    def s_While(self, node) -> None:
        self._header(_lineno(node))
        self._w("while ")
        self._named(node.test)
        self._w(":")
        self._block(node.body)
        self._else(node.orelse)

    def s_If(self, node) -> None:
        self._header(_lineno(node))
        self._w("if ")
        self._named(node.test)
        self._w(":")
        self._block(node.body)
        while len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            if self.statement_lines is not None:
                self._mark = node
            self._header(_lineno(node))
            self._w("elif ")
            self._named(node.test)
            self._w(":")
            self._block(node.body)
        self._else(node.orelse)

    def s_With(self, node, keyword: str = "with") -> None:
        self._header(_lineno(node))
        self._w(keyword + " ")
        for i, item in enumerate(node.items):
            if i:
                self._comma(item.context_expr)
            self._withitem(item)
        self._w(":")
        self._block(node.body)

    def s_AsyncWith(self, node) -> None:
        self.s_With(node, "async with")

    def _withitem(self, item) -> None:
        expr = item.context_expr
        if isinstance(expr, ast.Tuple) and item.optional_vars is None:
            # ``with (a, b):`` is two items from 3.9 on; ``((a, b))`` is one.
            self._brk(expr)
            with self._delim("(", ")"):
                self._expr(expr, ATOM)
        else:
            self._expr(expr, TEST)
        if item.optional_vars is not None:
            self._ws(" as ")
            self._expr(item.optional_vars, TEST)

    def s_Match(self, node) -> None:
        self._header(_lineno(node))
        self._w("match ")
        self._value(node.subject, yield_ok=False, star_ok=False)
        self._w(":")
        self._level += 1
        try:
            for case in node.cases:
                self._clause(case.body, _lineno(case.pattern))
                self._w("case ")
                self._pattern(case.pattern, _P_AS)
                if case.guard is not None:
                    self._ws(" if ")
                    self._named(case.guard)
                self._w(":")
                self._block(case.body)
        finally:
            self._level -= 1

    def s_Raise(self, node) -> None:
        self._w("raise")
        if node.exc is not None:
            self._w(" ")
            self._expr(node.exc, TEST)
        if node.cause is not None:
            self._ws(" from ")
            self._expr(node.cause, TEST)

    def s_Try(self, node, star: bool = False) -> None:
        self._header(_lineno(node))
        self._w("try:")
        self._block(node.body)
        for handler in node.handlers:
            self._clause(handler.body, _lineno(handler))
            self._w("except*" if star else "except")
            if handler.type is not None:
                self._w(" ")
                self._expr(handler.type, TEST)
                if handler.name:
                    self._w(" as " + handler.name)
            self._w(":")
            self._block(handler.body)
        self._else(node.orelse)
        if node.finalbody:
            self._clause(node.finalbody)
            self._w("finally:")
            self._block(node.finalbody)

    def s_TryStar(self, node) -> None:
        self.s_Try(node, star=True)

    def s_Assert(self, node) -> None:
        self._w("assert ")
        self._expr(node.test, TEST)
        if node.msg is not None:
            self._comma(node.msg)
            self._expr(node.msg, TEST)

    def s_Import(self, node) -> None:
        self._w("lazy import " if getattr(node, "is_lazy", 0) else "import ")
        self._items(node.names, None)

    def s_ImportFrom(self, node) -> None:
        self._w(("lazy from " if getattr(node, "is_lazy", 0) else "from ")
                + "." * (node.level or 0) + (node.module or "") + " import ")
        names = node.names
        wrap = any(self._wants_break(a) for a in names) and names[0].name != "*"
        with self._delim("(", ")", wrap):
            self._items(names, None)

    def s_Global(self, node) -> None:
        self._w("global " + ", ".join(node.names))

    def s_Nonlocal(self, node) -> None:
        self._w("nonlocal " + ", ".join(node.names))

    def s_Expr(self, node) -> None:
        self._value(node.value)

    def s_Pass(self, node) -> None:
        self._w("pass")

    def s_Break(self, node) -> None:
        self._w("break")

    def s_Continue(self, node) -> None:
        self._w("continue")

    # -- pieces that are not expressions ---------------------------------------------------

    def _items(self, nodes, ctx) -> None:
        """``a, b, c``: comma-separated, a line break after the comma if due."""
        for i, node in enumerate(nodes):
            if i:
                self._comma(node)
            self._node(node, ctx)

    def _node(self, node, ctx) -> None:
        """An expression, or one of the helper nodes that sit among them."""
        try:
            method = _N_METHODS[type(node)]     # (a subscript, not .get(): no call)
        except KeyError:
            method = _N_METHODS[type(node)] = getattr(_Renderer, "n_" + type(node).__name__, None)
        if method is not None:
            self._brk(node)
            method(self, node)
        else:
            self._expr(node, ctx)

    def n_keyword(self, node) -> None:
        if node.arg is None:
            self._w("**")
            self._expr(node.value, TEST)
        else:
            self._w(node.arg + "=")
            self._expr(node.value, TEST)

    def n_alias(self, node) -> None:
        self._w(node.name)
        if node.asname:
            self._w(" as " + node.asname)

    def n_arg(self, node, default=None) -> None:
        self._w(node.arg)
        if node.annotation is not None:
            self._w(": ")
            self._expr(node.annotation, TEST)
        if default is not None:
            self._w(" = " if node.annotation is not None else "=")
            self._expr(default, TEST)

    def n_withitem(self, node) -> None:
        self._withitem(node)

    def n_comprehension(self, node) -> None:
        self._comprehensions([node])

    def n_TypeVar(self, node) -> None:
        self._w(node.name)
        bound = getattr(node, "bound", None)
        if bound is not None:
            self._w(": ")
            self._expr(bound, TEST)
        self._type_default(node)

    def n_ParamSpec(self, node) -> None:
        self._w("**" + node.name)
        self._type_default(node)

    def n_TypeVarTuple(self, node) -> None:
        self._w("*" + node.name)
        self._type_default(node)

    def _type_default(self, node) -> None:
        default = getattr(node, "default_value", None)
        if default is not None:
            self._ws(" = ")
            self._expr(default, TEST)

    def n_arguments(self, node) -> None:
        self._arguments(node)

    def _arguments(self, args) -> None:
        items: List[Tuple[str, object, object]] = []  # (prefix, arg or marker, default)
        positional = list(args.posonlyargs) + list(args.args)
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        for i, (arg, default) in enumerate(zip(positional, defaults)):
            items.append(("", arg, default))
            if args.posonlyargs and i + 1 == len(args.posonlyargs):
                items.append(("/", None, None))
        if args.vararg is not None or args.kwonlyargs:
            items.append(("*", args.vararg, None))
        kw_defaults = list(args.kw_defaults) + [None] * (len(args.kwonlyargs)
                                                         - len(args.kw_defaults))
        for arg, default in zip(args.kwonlyargs, kw_defaults):
            items.append(("", arg, default))
        if args.kwarg is not None:
            items.append(("**", args.kwarg, None))
        for i, (prefix, arg, default) in enumerate(items):
            if i:
                self._comma(arg)
            if arg is not None:
                self._brk(arg)
            self._w(prefix)
            if arg is not None:
                self.n_arg(arg, default)

    def _comprehensions(self, generators) -> None:
        for gen in generators:
            self._brk(gen.target)
            self._ws(" async for " if gen.is_async else " for ")
            self._expr(gen.target, TUPLE)
            self._brk(gen.iter)
            self._ws(" in ")
            self._expr(gen.iter, OR)
            for cond in gen.ifs:
                self._brk(cond)
                self._ws(" if ")
                self._expr(cond, OR)

    # -- expressions -----------------------------------------------------------------------

    def _dispatch(self, prefix: str, node, *args) -> None:
        methods = _METHODS[prefix]
        method = methods.get(type(node))
        if method is None:
            method = methods[type(node)] = _method_for(prefix, type(node))
        method(self, node, *args)

    def _expr(self, node, ctx) -> None:
        """Write ``node``, in parentheses if its level is below ``ctx``."""
        # (_brk's first tests and _dispatch, inlined: this runs for every expression node)
        cls = type(node)
        if self.faithful and not self._nobreak:
            target = getattr(node, "lineno", None)
            if target is not None and (type(target) is not int or target > len(self._lines) + 1) \
                    and not (cls is ast.BoolOp and _bracketed_boolop(node, ctx)):
                self._brk(node)     # (an and/or in brackets breaks inside them: x_BoolOp)
        if cls is _NAME:    # (x_Name's usual case, inlined: a third of all nodes are names)
            text = node.id
            if text and "\n" not in text:
                self._fresh = False
                self._cur.append(text)
                return
        try:
            method = _X_METHODS[cls]        # (a subscript, not .get(): no call)
        except KeyError:
            method = _X_METHODS[cls] = _method_for("x_", cls)
        method(self, node, ctx)

    def _value(self, node, yield_ok: bool = True, star_ok: bool = True) -> None:
        """A statement's value slot: tuples bare unless they hold a starred item
        and ``star_ok`` is false; ``yield`` bare when ``yield_ok``."""
        name = type(node).__name__
        if name == "Tuple" and not star_ok and any(isinstance(e, ast.Starred)
                                                   for e in node.elts):
            self._expr(node, ATOM)
        elif name in ("Yield", "YieldFrom") and not yield_ok:
            self._expr(node, TEST)
        else:
            self._expr(node, TUPLE)

    def _named(self, node) -> None:
        """A slot that takes a bare ``x := y`` but is otherwise an expression."""
        self._expr(node, NAMED if isinstance(node, ast.NamedExpr) else TEST)

    def x_Name(self, node, ctx) -> None:
        self._w(node.id)        # (_expr writes a plain ast.Name itself)

    def x_Constant(self, node, ctx) -> None:
        self._constant(node.value, ctx, getattr(node, "kind", None))

    def _constant(self, value, ctx, kind=None) -> None:
        if isinstance(value, (str, bytes)):
            self._w(self._string(value, "u" if kind == "u" else ""))
            return
        if value is None or value is True or value is False:
            text, level = repr(value), ATOM
        elif value is Ellipsis:
            text, level = "...", ATOM
        elif isinstance(value, int):
            text, level = _int_text(value)
        elif isinstance(value, float):
            text, level = _float_text(value)
        elif isinstance(value, complex):
            text, level = _complex_text(value)
        elif isinstance(value, tuple):
            with self._delim("(", ")"):
                for i, item in enumerate(value):
                    if i:
                        self._w(", ")
                    self._constant(item, TEST)
                if len(value) == 1:
                    self._w(",")
            return
        elif isinstance(value, frozenset):
            if not value:
                self._w("frozenset()")
                return
            # A set display folds to a frozenset (``x in {1, 2}``); a fixed order.
            texts = sorted(self._capture(lambda item=item: self._constant(item, TEST))
                           for item in value)
            with self._delim("{", "}"):
                self._w(", ".join(texts))
            return
        else:
            text, level = repr(value), ATOM
        self._w("(" + text + ")" if level < ctx else text)

    def _string(self, value, prefix: str = "") -> str:
        """A string/bytes literal; inside a pre-3.12-style f-string replacement
        field, one that needs no backslash and no enclosing quote."""
        if isinstance(value, bytes):
            prefix = "b"
        if not self._fq:
            return _std_literal(value, prefix)
        for quote in _QUOTES:
            body = _raw_body(value, quote)
            if body is not None and _fits(prefix + quote + body + quote, self._fq):
                return prefix + quote + body + quote
        raise _Impossible()

    # f-strings, in order of preference, on any target: one literal in pre-3.12
    # style (no enclosing quote and no backslash in a replacement field); the
    # same split into adjacent literals (they parse to the one JoinedStr), each
    # with its own quotes; for 3.12+ targets the PEP 701 spelling; else (before
    # 3.12, nothing else works) adjacent literals, a field in 3.12 style.

    def x_JoinedStr(self, node, ctx) -> None:
        self._w(self._fstring(list(node.values)))

    def x_FormattedValue(self, node, ctx) -> None:
        self._w(self._fstring([node]))

    def x_TemplateStr(self, node, ctx) -> None:
        # (a t-string, PEP 750: written as an f-string is, with its own prefix)
        saved, self._fprefix = self._fprefix, "t"
        try:
            self._w(self._fstring(list(node.values)))
        finally:
            self._fprefix = saved

    @staticmethod
    def _quote_order(values) -> Tuple[str, ...]:
        text = "".join(v.value for v in values
                       if isinstance(v, ast.Constant) and isinstance(v.value, str))
        if "'" in text and '"' not in text:
            return ('"', "'", '"""', "'''")
        return _QUOTES

    def _fstring(self, values) -> str:
        enclosing = self._fq
        order = self._quote_order(values)
        for quote in order:
            if any(q in quote for q in enclosing):
                continue  # cannot even open
            try:
                text = self._fstring_as(values, quote, enclosing + (quote,))
            except _Impossible:
                continue
            if _fits(text, enclosing):
                return text
        if enclosing:
            raise _Impossible()
        # Adjacent literals concatenate into one f-string: each piece may pick
        # its own quotes. Valid everywhere, so preferred to the 3.12 spelling.
        pieces = self._fstring_pieces(values, best_effort=False)
        if pieces is not None:
            return pieces
        if self.target >= (3, 12):
            return self._fstring_as(values, order[0], None)
        return self._fstring_pieces(values, best_effort=True)

    def _fstring_pieces(self, values, best_effort: bool) -> Optional[str]:
        pieces, run = [], []
        for value in values + [None]:
            if isinstance(value, ast.Constant):
                run.append(value.value)
                continue
            if run:
                text = "".join(run)
                # (a t-string's pieces are t-strings: a plain literal cannot join one)
                pieces.append(_std_literal(text) if self._fprefix == "f" else
                              self._fstring_as([ast.Constant(text)], _QUOTES[0], (_QUOTES[0],)))
                run = []
            if value is None:
                break
            for quote in self._quote_order([value]):
                try:
                    pieces.append(self._fstring_as([value], quote, (quote,)))
                    break
                except _Impossible:
                    pass
            else:
                if not best_effort:
                    return None
                pieces.append(self._fstring_as([value], "'", None))  # 3.12+ only
        return " ".join(pieces) if pieces else self._fprefix + "''"

    def _fstring_as(self, values, quote: str, inner: Optional[Tuple[str, ...]]) -> str:
        """The f-string with delimiters ``quote``; ``inner`` is the quote stack
        its replacement fields live in (None: 3.12 rules, no restrictions)."""
        parts = [self._fstring_part(v, quote, inner) for v in values]
        return self._fprefix + quote + "".join(parts) + quote

    def _fstring_part(self, value, quote, inner) -> str:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            text = value.value
            if inner is None or len(inner) == 1:
                body = _quote_body(text, quote)
            else:  # inside an outer replacement field: raw text only
                body = _raw_body(text, quote)
                if body is None:
                    raise _Impossible()
            return body.replace("{", "{{").replace("}", "}}")
        if isinstance(value, (ast.FormattedValue, Interpolation)):
            return self._replacement_field(value, quote, inner)
        if isinstance(value, ast.JoinedStr):
            return "".join(self._fstring_part(v, quote, inner) for v in value.values)
        raise TypeError("cannot render %s inside an f-string" % type(value).__name__)

    def _replacement_field(self, node, quote, inner) -> str:
        saved = self._fq
        self._fq = inner or ()
        try:
            text = self._capture(lambda: self._expr(node.value, OR))
        finally:
            self._fq = saved
        source = getattr(node, "str", None)
        if source is not None and source != text and _same_expression(source, text):
            # A t-string keeps its expressions' text: the one written, where ours
            # reads the same.
            text = source
        if inner is not None:
            if "\\" in text:
                raise _Impossible()
            if "\n" in text and not all(len(q) == 3 for q in inner):
                raise _Impossible()
        if text.startswith("{"):
            text = " " + text + " "
        conversion = getattr(node, "conversion", -1)
        if conversion is not None and conversion >= 0:
            text += "!" + chr(conversion)
        spec = getattr(node, "format_spec", None)
        if spec is not None:
            text += ":" + "".join(self._fstring_part(v, quote, inner)
                                  for v in spec.values)
        return "{" + text + "}"

    def x_Tuple(self, node, ctx) -> None:
        # Parenthesised too when its items start below it: it had brackets.
        spread = self._wants_break(node.elts[0]) if node.elts else False
        paren = not node.elts or ctx > TUPLE or spread
        if paren:
            self._open("(")
        self._items(node.elts, TEST)
        if len(node.elts) == 1:
            self._w(",")
        if paren:
            self._close(")")

    def x_List(self, node, ctx) -> None:
        self._open("[")
        self._items(node.elts, TEST)
        self._close("]")

    def x_Set(self, node, ctx) -> None:
        if not node.elts:
            self._w("{*()}")  # there is no empty set display
            return
        with self._delim("{", "}"):
            self._items(node.elts, TEST)

    def x_Dict(self, node, ctx) -> None:
        with self._delim("{", "}"):
            for i, (key, value) in enumerate(zip(node.keys, node.values)):
                if i:
                    nxt = key if key is not None else value
                    self._comma(nxt)
                if key is None:
                    self._brk(value)
                    self._w("**")
                    self._expr(value, BOR)
                else:
                    self._expr(key, TEST)
                    self._w(": ")
                    self._expr(value, TEST)

    def x_ListComp(self, node, ctx) -> None:
        with self._delim("[", "]"):
            self._expr(node.elt, TEST)
            self._comprehensions(node.generators)

    def x_SetComp(self, node, ctx) -> None:
        with self._delim("{", "}"):
            self._expr(node.elt, TEST)
            self._comprehensions(node.generators)

    def x_GeneratorExp(self, node, ctx) -> None:
        with self._delim("(", ")"):
            self._expr(node.elt, TEST)
            self._comprehensions(node.generators)

    def x_DictComp(self, node, ctx) -> None:
        with self._delim("{", "}"):
            if getattr(node, "value", None) is None:
                # 3.15+ (PEP 798): ``{**d for d in ds}`` has no value
                self._w("**")
                self._expr(node.key, BOR)
            else:
                self._expr(node.key, TEST)
                self._w(": ")
                self._expr(node.value, TEST)
            self._comprehensions(node.generators)

    def x_NamedExpr(self, node, ctx) -> None:
        with self._delim("(", ")", NAMED < ctx):
            self._expr(node.target, ATOM)
            self._ws(" := ")
            self._expr(node.value, TEST)

    def x_BoolOp(self, node, ctx) -> None:
        word, level = _BOOLOP[type(node.op).__name__]
        paren = _bracketed_boolop(node, ctx)
        if paren:
            # The bracket stays where the code around it is: on the line of an
            # and/or it opens (3.10/3.11 thread one's jumps into the next only
            # where their lines agree: `x = (\n a or b) and c` keeps two).
            self._open("(")
            self._brk(node)
        for i, value in enumerate(node.values):
            if i:
                self._brk(value)
                self._ws(" %s " % word)
                self._expr(value, level + 1)
            elif self._opens_above(node, value):
                # Its jumps' line is above its first operand's: the source
                # opened a bracket there (`x = (\n a and b) or c`).
                self._open("(")
                self._expr(value, level + 1)
                self._close(")")
            else:
                self._expr(value, level + 1)
        if paren:
            self._close(")")

    def _opens_above(self, node, first) -> bool:
        """In the line-faithful layout, ``node`` (an and/or whose jumps gave it
        a line) starts on a line above the one its first operand goes to."""
        if not self.faithful or self._nobreak:
            return False
        line, below = _lineno(node), _lineno(first)
        return line is not None and below is not None and below > line

    def x_BinOp(self, node, ctx) -> None:
        symbol, level = _BINOP[type(node.op).__name__]
        power = symbol == "**"
        paren = level < ctx
        if paren:
            self._open("(")
        self._expr(node.left, level + 1 if power else level)
        self._brk(node.right)
        self._ws(" %s " % symbol)
        self._expr(node.right, FACTOR if power else level + 1)
        if paren:
            self._close(")")

    def x_UnaryOp(self, node, ctx) -> None:
        symbol, level = _UNARY[type(node.op).__name__]
        with self._delim("(", ")", level < ctx):
            self._w(symbol)
            operand = node.operand
            if level == FACTOR and _starts_with_sign(operand):
                self._w(" ")
            self._expr(operand, level)

    def x_Compare(self, node, ctx) -> None:
        paren = CMP < ctx
        if paren:
            self._open("(")
        self._expr(node.left, CMP + 1)
        for op, right in zip(node.ops, node.comparators):
            self._brk(right)
            self._ws(" %s " % _CMPOP[type(op).__name__])
            self._expr(right, CMP + 1)
        if paren:
            self._close(")")

    def x_Lambda(self, node, ctx) -> None:
        with self._delim("(", ")", TEST < ctx):
            self._w("lambda")
            args = node.args
            if (args.posonlyargs or args.args or args.vararg or args.kwonlyargs
                    or args.kwarg):
                self._w(" ")
                self._arguments(args)
            self._w(": ")
            self._expr(node.body, TEST)

    def x_IfExp(self, node, ctx) -> None:
        with self._delim("(", ")", TEST < ctx):
            self._expr(node.body, TEST + 1)
            self._brk(node.test)
            self._ws(" if ")
            self._expr(node.test, TEST + 1)
            self._brk(node.orelse)
            self._ws(" else ")
            self._expr(node.orelse, TEST)

    def x_Await(self, node, ctx) -> None:
        with self._delim("(", ")", AWAIT < ctx):
            self._w("await ")
            self._expr(node.value, ATOM)

    def x_Yield(self, node, ctx) -> None:
        with self._delim("(", ")", YIELD < ctx):
            self._w("yield")
            if node.value is not None:
                self._w(" ")
                self._value(node.value, yield_ok=False)

    def x_YieldFrom(self, node, ctx) -> None:
        with self._delim("(", ")", YIELD < ctx):
            self._w("yield from ")
            self._expr(node.value, TEST)

    def x_Starred(self, node, ctx) -> None:
        self._w("*")
        self._expr(node.value, BOR)

    def x_Attribute(self, node, ctx) -> None:
        value = node.value
        number = (isinstance(value, ast.Constant) and not isinstance(value.value, bool)
                  and isinstance(value.value, (int, float, complex)))
        if number:  # ``1.real`` would read as a float; ``-1 .real`` as -(1 .real)
            self._brk(value)
            with self._delim("(", ")"):
                self._expr(value, 0)
        else:
            self._expr(value, ATOM)
        self._w("." + node.attr)

    def x_Call(self, node, ctx) -> None:
        self._expr(node.func, ATOM)
        args = node.args
        keywords = node.keywords
        if len(args) + len(keywords) == 1:
            only = args[0] if args else keywords[0]
            if isinstance(only, ast.GeneratorExp):
                self._expr(only, TEST)  # ``f(x for x in y)``: the genexp's own parens
                return
        # Compact layout: an outermost call whose line runs long is written again
        # an argument a line (checked after the fact: most calls are short).
        wrappable = not self.faithful and not self._nobreak and not self._depth and len(args) + len(keywords) > 1
        if wrappable:
            start, lines_before = len(self._cur), len(self._lines)
        self._open("(")
        first = True
        for arg in (args if not keywords else list(args) + list(keywords)):
            if first:
                first = False
            else:
                self._comma(arg)
            if isinstance(arg, ast.keyword):
                self._brk(arg)
                self.n_keyword(arg)
            else:
                self._expr(arg, NAMED if isinstance(arg, ast.NamedExpr) else TEST)
        self._close(")")
        if wrappable and len(self._lines) == lines_before and sum(len(p) for p in self._cur) > WRAP \
                and sum(len(p) for p in self._cur[start:]) > WRAP // 2:     # (long for its arguments)
            del self._cur[start:]
            self._wrapped_arguments(list(args) + list(keywords))

    def _wrapped_arguments(self, items) -> None:
        """``(`` and an argument a line, then ``)`` on a line of its own."""
        texts = [self._capture(lambda a=a: self.n_keyword(a) if isinstance(a, ast.keyword) else
                               self._expr(a, NAMED if isinstance(a, ast.NamedExpr) else TEST))
                 for a in items]
        if any("\n" in t for t in texts):
            self._w("(" + ", ".join(texts) + ")")
            return
        indent = _INDENT * (self._level + 1)
        self._w("(")
        for text in texts:
            self._newline()
            self._cur = [indent, text, ","]
        self._newline()
        self._cur = [_INDENT * self._level, ")"]

    def x_Subscript(self, node, ctx) -> None:
        self._expr(node.value, ATOM)
        self._open("[")
        self._slice(node.slice)
        self._close("]")

    def _slice(self, index) -> None:
        if isinstance(index, ast.Tuple) and index.elts:
            elts = index.elts
            starred = any(isinstance(e, ast.Starred) for e in elts)
            sliced = any(isinstance(e, ast.Slice) for e in elts)
            if starred and not sliced and self.target < (3, 11):
                self._expr(index, ATOM)  # ``a[(*b,)]``: ``a[*b]`` is 3.11+
                return
            self._brk(index)
            self._items(elts, TEST)
            if len(elts) == 1:
                self._w(",")
        else:
            self._expr(index, TEST)

    def x_Slice(self, node, ctx) -> None:
        if node.lower is not None:
            self._expr(node.lower, TEST + 1)
        self._w(":")
        if node.upper is not None:
            self._expr(node.upper, TEST + 1)
        if node.step is not None:
            self._w(":")
            self._expr(node.step, TEST + 1)

    # -- patterns --------------------------------------------------------------------------

    def _pattern(self, node, ctx) -> None:
        self._brk(node)
        self._dispatch("p_", node, ctx)

    def _patterns(self, patterns) -> None:
        for i, pattern in enumerate(patterns):
            if i:
                self._comma(pattern)
            self._pattern(pattern, _P_AS)

    def p_MatchValue(self, node, ctx) -> None:
        self._expr(node.value, 0)

    def p_MatchSingleton(self, node, ctx) -> None:
        self._w(repr(node.value))

    def p_MatchSequence(self, node, ctx) -> None:
        with self._delim("[", "]"):
            self._patterns(node.patterns)

    def p_MatchStar(self, node, ctx) -> None:
        self._w("*" + (node.name or "_"))

    def p_MatchMapping(self, node, ctx) -> None:
        with self._delim("{", "}"):
            for i, (key, pattern) in enumerate(zip(node.keys, node.patterns)):
                if i:
                    self._comma(key)
                self._expr(key, 0)
                self._w(": ")
                self._pattern(pattern, _P_AS)
            if node.rest is not None:
                if node.keys:
                    self._w(", ")
                self._w("**" + node.rest)

    def p_MatchClass(self, node, ctx) -> None:
        self._expr(node.cls, ATOM)
        with self._delim("(", ")"):
            self._patterns(node.patterns)
            for i, (attr, pattern) in enumerate(zip(node.kwd_attrs, node.kwd_patterns)):
                if i or node.patterns:
                    self._comma(pattern)
                self._w(attr + "=")
                self._pattern(pattern, _P_AS)

    def p_MatchAs(self, node, ctx) -> None:
        if node.pattern is None:
            self._w(node.name or "_")
            return
        with self._delim("(", ")", ctx > _P_AS):
            self._pattern(node.pattern, _P_OR)
            self._w(" as " + node.name)

    def p_MatchOr(self, node, ctx) -> None:
        with self._delim("(", ")", ctx > _P_OR):
            for i, pattern in enumerate(node.patterns):
                if i:
                    self._brk(pattern)
                    self._ws(" | ")
                self._pattern(pattern, _P_ATOM)


#: prefix -> node class -> the _Renderer method that writes it (by class name, so
#: host classes and astcompat's render alike), looked up once per class
_METHODS = {"s_": {}, "x_": {}, "p_": {}}
_X_METHODS = _METHODS["x_"]
#: statement class -> (its ``s_`` method, whether it is a simple statement)
_S_KINDS: dict = {}
#: node class -> its ``n_`` method, or None (an expression)
_N_METHODS: dict = {}


def _method_for(prefix: str, cls):
    for klass in cls.__mro__:
        method = getattr(_Renderer, prefix + klass.__name__, None)
        if method is not None:
            return method
    raise TypeError("cannot render %s node" % cls.__name__)


def _starts_with_sign(node) -> bool:
    """Would ``node`` print starting with ``-``/``+`` (so ``- -x`` needs a blank)?"""
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, (ast.USub, ast.UAdd))
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
            return False
        if isinstance(value, int):
            return value < 0
        if isinstance(value, float):
            return _float_text(value)[0].startswith("-")
        return _complex_text(value)[0].startswith("-")
    return False


def _is_docstring(stmt) -> bool:
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str))


def render(node, layout: str = "lines", target: Sequence[int] = DEFAULT_TARGET,
           statement_lines: Optional[Dict[ast.stmt, int]] = None) -> str:
    """Source text for ``node``.

    ``node``: an ``ast.Module`` (or ``Interactive``), a statement or a list of
    statements (text ending in a newline); an ``ast.Expression`` or any
    expression, pattern, ``arguments``, ``keyword``... (a single line, no
    newline at the end); fields a node lacks are filled in with
    :func:`~depyf.decompiler.astcompat.make`'s defaults. ``layout``:
    ``"lines"`` keeps line numbers,
    ``"compact"`` ignores them. ``target``: the ``(3, minor)`` version the
    text must be valid for. ``statement_lines``, a dict, receives each
    statement rendered and the line (from 1) its text starts on.

    Example::

        >>> import ast
        >>> render(ast.parse("x = 1\\ny = 2"), layout="compact")
        'x = 1\\ny = 2\\n'
        >>> render(ast.parse("(a + b) * -c ** 2", mode="eval"))
        '(a + b) * -c ** 2'
    """
    try:
        return _render(node, layout, target, statement_lines)
    except AttributeError:
        # Nodes built without make() may lack fields: fill them in and print
        # again. Reading a missing field is the only way to meet one (optional
        # fields default at class level), so a complete tree, as the decompiler
        # builds, skips fill_missing's walk over every node.
        for tree in node if isinstance(node, (list, tuple)) else [node]:
            fill_missing(tree)
        return _render(node, layout, target, statement_lines)


def _render(node, layout: str, target: Sequence[int],
            statement_lines: Optional[Dict[ast.stmt, int]] = None) -> str:
    renderer = _Renderer(layout, target, statement_lines)
    if isinstance(node, (list, tuple)):
        renderer.module(list(node), doc=False)
        return renderer.text()
    if isinstance(node, (ast.Module, ast.Interactive)):
        renderer.module(node.body, doc=isinstance(node, ast.Module))
        return renderer.text()
    if isinstance(node, ast.stmt):
        renderer.module([node], doc=False)
        return renderer.text()
    renderer._nobreak += 1  # a lone expression: one line
    if isinstance(node, ast.Expression):
        renderer._value(node.body, yield_ok=False)
    elif isinstance(node, ast.FunctionType):
        with renderer._delim("(", ")"):
            renderer._items(node.argtypes, TEST)
        renderer._w(" -> ")
        renderer._expr(node.returns, TEST)
    elif isinstance(node, ast.pattern):
        renderer._pattern(node, _P_AS)
    elif isinstance(node, ast.match_case):
        renderer._w("case ")
        renderer._pattern(node.pattern, _P_AS)
        if node.guard is not None:
            renderer._w(" if ")
            renderer._named(node.guard)
    elif isinstance(node, ast.expr):
        renderer._expr(node, TUPLE)
    else:
        renderer._node(node, TEST)
    return "\n".join(renderer._lines + ["".join(renderer._cur)])
