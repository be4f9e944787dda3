"""The text of the dumped files, built from what the hooks recorded.

``full_code_for_<fn>.py`` reads top to bottom as Dynamo works: the guard
helpers, then per cache entry its guard function and transformed code, the
resume functions the transformed code calls, the original function (under
``__original_<fn>``) and last a function ``<fn>`` that dispatches between them
the way Dynamo's cache does. Everything is decompiled from code objects (never
read from source files), so it shows what really runs.
"""
from __future__ import annotations

import re
import types
from typing import Dict, Iterable, List, Optional, Tuple

from ..bytecode.code import parameters
from ..decompiler.readable.effects import BUILTINS_DICT

FAILURE_STUB = "depyf could not decompile"

_IMPORT_GLOBAL = re.compile(r"^__import_(\w+)$")
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def decompile_as(code: types.CodeType, name: str, readable=None) -> str:
    """Decompiled ``code`` as a ``def`` called ``name`` (compact layout: Dynamo's
    line numbers jump around, so the line-faithful layout would only add gaps);
    ``readable`` (a :class:`~depyf.decompiler.readable.Readable`) asks for the
    readable form of code Dynamo made, None for the faithful one (validated:
    see :func:`depyf.decompile`)."""
    return decompiled_as(code, name, readable)[0]


def decompiled_as(code: types.CodeType, name: str, readable=None,
                  lines: Optional[Dict[int, int]] = None) -> Tuple[str, bool]:
    """(text, compiles): :func:`decompile_as`, and whether validation
    compiled the text as it is (then it need not be compiled to be checked).
    ``lines``, a dict, receives for the readable form the line of the text
    (from 1) each instruction of ``code`` went into, by its offset
    (:mod:`depyf.decompiler.line_map`): left empty for the faithful form.

    >>> decompiled_as((lambda x: x + 1).__code__, "f")
    ('def f(x):\\n    return x + 1\\n', True)
    """
    from ..decompiler.api import decompile_report
    from ..decompiler.constants import definitions_text
    renamed = code.replace(co_name=name, co_qualname=name) if hasattr(code, "co_qualname") \
        else code.replace(co_name=name)
    # The enclosing scope is built here (cells included), not by the decompiler.
    report = decompile_report(renamed, layout="compact", enclose=False, readable=readable or False,
                              define_constants=True, line_map=lines is not None)
    text = report.source
    compiled = report.compiled and not (code.co_cellvars or code.co_freevars)
    # (each step below moves the lines after where it writes: the map follows)
    found = report.line_map or {}
    if code.co_cellvars:
        text, at = cells_kept(text, name, code.co_cellvars)
        if at is not None:
            found = {k: line + 2 if line > at else line for k, line in found.items()}
    if code.co_freevars:
        text = enclose(text, name, code.co_freevars)
        found = {k: line + 1 + len(code.co_freevars) for k, line in found.items()}
    # Constants no literal writes (a torch.device Dynamo put in co_consts): named
    # at module level, so that the file runs on its own (each definition was
    # evaluated once: it compiles).
    prefix = definitions_text(report.definitions)
    if lines is not None:
        shift = prefix.count("\n")
        lines.update((k, line + shift) for k, line in found.items())
    return prefix + text, compiled


#: names Dynamo numbers anew at every compile: its graphs
#: (__compiled_fn_<counter>_<uuid4 with _ for ->) and its resume functions
#: (__resume_at_<offset resumed at>_<counter>)
COMPILED_FN = re.compile(r"^(__compiled_fn_\d+)(_[0-9a-f]{8}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{12})?$")
RESUME = re.compile(r"^__resume_at_(\d+)_\d+$")
#: a module Dynamo loads where the frame's globals lack it under its own name,
#: installed as ___module_<its name's last part>_<its id>_c<Dynamo's compile counter>
MODULE_BY_ID = re.compile(r"^___module_(\w+?)_(\d+)_c\d+$")
#: names whose number is Dynamo's counter, not part of what the code does
_NUMBERED = (COMPILED_FN, RESUME, MODULE_BY_ID, BUILTINS_DICT)


def shape_key(code: types.CodeType) -> Optional[bytes]:
    """All that decompiling ``code`` reads, but for the names Dynamo numbers
    anew at every compile (its graphs, resume functions, modules it installed
    by id and builtins dicts): two compiles of one frame that differ only
    there (a resume function compiled again for other guards, a recompile of
    an already dynamic frame) decompile alike, and one's text serves the
    other, renamed (:func:`renamed_text`). A constant no literal writes (a
    ``torch.device`` Dynamo put in co_consts) counts by the definition the
    text gives it; None where one has none (no text is shared then).

    >>> a = compile("__compiled_fn_1(x)", "<s>", "eval")
    >>> shape_key(a) == shape_key(a.replace(co_names=("__compiled_fn_7", "x")))
    True
    """
    import marshal
    names = tuple("#" if any(p.match(n) for p in _NUMBERED) else n for n in code.co_names)
    renamed = code.replace(co_names=names)
    try:
        return marshal.dumps(renamed)
    except ValueError:
        pass
    # (where each stand-in is goes into the key too: no constant of the code
    # itself can be taken for one)
    odd: List[tuple] = []
    stood_in = _standing_in(renamed, (), odd)
    if stood_in is None:
        return None
    try:
        return marshal.dumps((stood_in, tuple(odd)))
    except ValueError:
        return None


def _standing_in(code: types.CodeType, path: tuple, odd: List[tuple]) -> Optional[types.CodeType]:
    """``code`` with each constant marshal cannot write replaced by its
    definition's text (noted in ``odd`` with where it was); None where one
    has no definition."""
    import marshal
    from ..decompiler.constants import definition
    consts = []
    for k, value in enumerate(code.co_consts):
        if isinstance(value, types.CodeType):
            value = _standing_in(value, path + (k,), odd)
            if value is None:
                return None
        else:
            try:
                marshal.dumps(value)
            except ValueError:
                text = definition(value)
                if text is None:
                    return None
                odd.append(path + (k,))
                value = text
        consts.append(value)
    return code.replace(co_consts=tuple(consts))


def hints_key(readable) -> tuple:
    """What of readable hints the text depends on, for telling cached texts apart."""
    keep = tuple(sorted(readable.keep)) if readable.keep is not None else None
    # a resume function's number differs from compile to compile; its offset does not
    callees = tuple(sorted(((RESUME.sub(r"\1", n)), tuple(p)) for n, p in readable.callees.items()))
    return keep, callees


def renamed_text(text: str, old_names: Tuple[str, ...], old_name: str, new: types.CodeType,
                 new_name: str) -> str:
    """The decompiled ``text`` of a code object whose ``co_names`` were
    ``old_names`` (as ``def old_name``) made that of ``new`` (as ``def
    new_name``), whose :func:`shape_key` is the same. (Names, not the code
    itself: a session holding Dynamo's code would keep its graphs alive.)"""
    names = {a: b for a, b in zip(old_names, new.co_names) if a != b}
    names[old_name] = new_name
    return rename(text, names)


def keep_cells(text: str, name: str, cellvars) -> str:
    """Make the cell variables of ``code`` cells in the decompiled function too.

    Dynamo's code keeps the original's cells (closures it builds read them,
    and it refuses replacement code whose cells differ), but the decompiled
    body may no longer show the nested function that made them cells: a
    nested function naming them, never called, makes them cells again.
    """
    return cells_kept(text, name, cellvars)[0]


def cells_kept(text: str, name: str, cellvars) -> Tuple[str, Optional[int]]:
    """(text, at): :func:`keep_cells`, and the line after which it put its two
    lines (None: it left the text alone)."""
    lines = text.splitlines(True)
    at = _first_body_line(lines, name)
    if at is None:
        import ast
        tree = ast.parse(text)
        fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
        if fn is None or not fn.body:
            return text, None
        first = fn.body[0]
        if (len(fn.body) > 1 and isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)):
            first = fn.body[1]          # the docstring stays first
        at, indent = first.lineno - 1, " " * first.col_offset
    else:
        indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
    lines.insert(at, "%sdef __depyf_cells__():  # keeps %s in cells, as Dynamo's code does\n"
                 "%s    return (%s,)\n" % (indent, ", ".join(cellvars), indent, ", ".join(cellvars)))
    return "".join(lines), at


def _first_body_line(lines: List[str], name: str) -> Optional[int]:
    """Where the body of ``def name`` starts in the decompiler's compact text
    (its header is one line): 1, or None when that is not plain to see (a
    docstring may open the body) and the text must be parsed."""
    if len(lines) < 2 or not lines[0].startswith("def %s(" % name) or not lines[0].endswith(":\n"):
        return None
    body = lines[1].lstrip()
    if not body or body[0] in "\"'" or (body[:1] in "rRbBuUfF" and body[1:2] in ("'", '"', "r", "R", "b", "B")):
        return None
    return 1


def closure_maker(name: str) -> str:
    """The name of the function :func:`enclose` defines around ``name``."""
    return "__closure_of_%s" % name


def enclose(text: str, name: str, freevars) -> str:
    r"""A function with free variables (a closure, or a resume function holding
    cells) defined inside a maker that owns those variables: at top level its
    ``nonlocal`` lines would not compile, and compiled this way it gets the
    same free variables as the code Dynamo runs.

    >>> print(enclose("def f():\n    nonlocal n\n    n += 1\n", "f", ("n",)), end="")
    def __closure_of_f():
        n = None
        def f():
            nonlocal n
            n += 1
        return f
    f = __closure_of_f()
    """
    maker = closure_maker(name)
    lines = ["def %s():" % maker]
    lines += ["    %s = None" % var for var in freevars]
    lines += [("    " + line) if line.strip() else "" for line in text.rstrip("\n").splitlines()]
    lines += ["    return %s" % name, "%s = %s()" % (name, maker)]
    return "\n".join(lines) + "\n"


def rename(text: str, names: Dict[str, str]) -> str:
    """Replace whole identifiers ``old`` by ``new`` in source text.

    >>> rename("f(f_x, f)", {"f": "g"})
    'g(f_x, g)'
    """
    # str.find, not a regex: the names (torch's graph names) differ at every
    # compile, and compiling a pattern for each cost more than the dump's writes.
    hits = []
    for old, new in names.items():
        start = text.find(old)
        while start >= 0:
            end = start + len(old)
            if not (start and _in_word(text[start - 1])) and not (end < len(text) and _in_word(text[end])):
                hits.append((start, end, new))
            start = text.find(old, end)
    if not hits:
        return text
    hits.sort()
    out, done = [], 0
    for start, end, new in hits:
        out += (text[done:start], new)
        done = end
    out.append(text[done:])
    return "".join(out)


def _in_word(ch: str) -> bool:
    """What a regex's ``\\w`` matches (the edge of a ``\\b``)."""
    return ch.isalnum() or ch == "_"


def import_globals(names: Iterable[str]) -> List[str]:
    """Assignments recreating the module aliases Dynamo installs as globals
    (``__import_torch_dot__dynamo_dot_utils`` is ``torch._dynamo.utils``), so a
    dumped file runs on its own."""
    lines = []
    for name in sorted(set(names)):
        m = _IMPORT_GLOBAL.match(name)
        if m is None:
            continue
        module = m.group(1).replace("_dot_", ".")
        if _DOTTED.match(module):
            lines.append("%s = importlib.import_module(%r)" % (name, module))
    return lines


def module_aliases(names: Iterable[str]) -> Dict[str, str]:
    """Dynamo's name -> the ``__import_`` name (:func:`import_globals`) of each
    module among ``names`` that Dynamo installed by its id (:data:`MODULE_BY_ID`):
    that name changes from run to run and no dumped file could define it. The
    module is the one in ``sys.modules`` with that id (alive: Dynamo's globals
    hold it); one not found there keeps Dynamo's name.

    >>> import collections
    >>> module_aliases(["___module_collections_%d_c0" % id(collections)]).popitem()[1]
    '__import_collections'
    """
    import sys
    found: Dict[str, str] = {}
    by_id = None
    for name in names:
        m = MODULE_BY_ID.match(name)
        if m is None:
            continue
        if by_id is None:
            by_id = {id(module): module for module in list(sys.modules.values())}
        module = by_id.get(int(m.group(2)))
        real = getattr(module, "__name__", None)
        if isinstance(real, str) and _DOTTED.match(real) and real.rsplit(".", 1)[-1] == m.group(1):
            found[name] = "__import_" + real.replace(".", "_dot_")
    return found


def signature(code: types.CodeType) -> Tuple[str, str]:
    """(parameter list, call arguments) of ``code``, defaults left out.

    >>> signature((lambda a, /, b, *c, d, **e: 0).__code__)
    ('a, /, b, *c, d, **e', 'a, b, *c, d=d, **e')
    """
    found = parameters(code.co_varnames, code.co_argcount, code.co_posonlyargcount,
                       code.co_kwonlyargcount, code.co_flags)
    call = list(found.posonly + found.regular)
    if found.vararg is not None:
        call.append("*" + found.vararg)
    call += ["%s=%s" % (name, name) for name in found.kwonly]
    if found.kwarg is not None:
        call.append("**" + found.kwarg)
    return found.text(), ", ".join(call)


def comment(text: str, prefix: str = "# ") -> str:
    return "".join((prefix + line).rstrip() + "\n" for line in text.splitlines())


def header(title: str, code: types.CodeType) -> str:
    return comment("%s\n%s (%s, line %d)\nWritten by depyf.prepare_debug: decompiled from the code "
                   "objects torch.compile made; edits here change nothing that runs."
                   % (title, code.co_qualname if hasattr(code, "co_qualname") else code.co_name,
                      code.co_filename, code.co_firstlineno))


def dispatch(fn_name: str, code: types.CodeType, entries: List[Tuple[str, str]],
             original: str) -> str:
    """``def fn_name``: try each entry's (guard, transformed) pair, newest first,
    as Dynamo's cache does; no match means Dynamo would compile again."""
    params, call = signature(code)
    lines = ["def %s(%s):" % (fn_name, params),
             '    """What runs when %s is called: the first cache entry whose guards pass runs its '
             'transformed code; Dynamo tries the newest first."""' % (code.co_name,),
             "    L = dict(locals())",
             "    G = globals()"]
    for guard, transformed in entries:
        lines.append("    if %s(L, G):" % guard)
        lines.append("        return %s(%s)" % (transformed, call))
    lines.append("    # No entry fits: Dynamo compiles the frame again (a recompile) or runs it as it is.")
    lines.append("    return %s(%s)" % (original, call))
    return "\n".join(lines) + "\n"


def bytecode_listing(code: types.CodeType) -> str:
    import dis
    return comment(dis.Bytecode(code).dis())


def readable_hints(original: Optional[types.CodeType], resume: Dict[str, types.CodeType]):
    """What the readable form of code Dynamo made from ``original`` may know:
    the original's own variables (kept as they are) and the parameters of the
    resume functions it calls (which name the values passed to them).
    ``original`` None: the code's own names but Dynamo's temporaries."""
    from ..decompiler.readable import Readable
    keep = None if original is None else (
        original.co_varnames + original.co_cellvars + original.co_freevars)
    callees = {name: rcode.co_varnames[:rcode.co_argcount + rcode.co_kwonlyargcount]
               for name, rcode in resume.items()}
    return Readable(keep=keep, callees=callees)


def safe_decompile(code: types.CodeType, name: str, check: bool = True,
                   readable=None, lines: Optional[Dict[int, int]] = None) -> Tuple[str, Optional[str]]:
    """(source, problem): decompiled ``code``; problem says why the text holds a
    failure stub or why decompiling raised (then the source is a stand-in).
    ``check=False`` leaves compiling the text to the caller (who compiles the
    file it goes into anyway), and :func:`uncompilable` to call if it fails.
    ``readable``: see :func:`decompile_as`; ``lines``: see :func:`decompiled_as`
    (left empty where there is a problem)."""
    found: Dict[int, int] = {}      # (the caller's only once the text stands)
    try:
        text, compiled = decompiled_as(code, name, readable, lines=None if lines is None else found)
    except Exception as e:      # the dump goes on with a stand-in for this one function
        problem = "%s: %s" % (type(e).__name__, e)
        params, _ = signature(code)
        text = "def %s(%s):\n    raise NotImplementedError(%r)\n" % (
            name, params, "depyf could not decompile %s: %s" % (code.co_name, problem))
        return text, problem
    if FAILURE_STUB in text:
        return text, "the decompiler left a failure stub"
    if check and not compiled:
        try:
            compile(text, "<depyf>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as e:
            return uncompilable(code, name, text, e)
    if lines is not None:
        lines.update(found)
    return text, None


def uncompilable(code: types.CodeType, name: str, text: str, error: Exception) -> Tuple[str, str]:
    """(stand-in, problem) for decompiled ``text`` that does not compile: a
    constant with no source form (an object Dynamo put in co_consts) printed
    as its repr, say. The text stays for reading, as comments."""
    problem = "the decompiled text does not compile (%s)" % error
    params, _ = signature(code)
    return ("def %s(%s):\n    raise NotImplementedError(%r)\n%s" % (
        name, params, "%s: %s" % (FAILURE_STUB, problem), comment(text))), problem
