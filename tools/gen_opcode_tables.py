#!/usr/bin/env python3
"""Generate depyf's per-version bytecode tables from each interpreter's own ``dis``.

Writes ``src/depyf/bytecode/versions/data/py3X.json`` (schema: the docstring of
``depyf.bytecode.versions``) for every supported minor version whose
interpreter is found. Each interpreter runs a small probe (``PROBE``, valid
Python 3.8) that dumps its ``opcode`` / ``dis`` facts and disassembles a few
sample snippets; the tables are derived here, then checked against that
disassembly, so a table that disagrees with ``dis`` is never written.

Interpreters: ``--python 3.8=/path/to/python`` wins, else pyenv's
``<root>/versions/3.X.<patch>/bin/python3.X`` (newest patch), the root being
``$PYENV_ROOT`` or the output of ``pyenv root``, else the Debian build that
``scripts/debian_python.sh`` unpacked (``<cache>/3.X/usr/bin/python3.X``, the
cache being ``$DEPYF_DEBIAN_PYTHONS`` or ``~/.cache/depyf/debian-python``).
Versions without an interpreter are skipped and their existing table is left
alone.

The tool does not import depyf: it produces the data the package needs to
import cleanly, so it must run while the package is half-built.

Example::

    python3 tools/gen_opcode_tables.py                  # all found versions
    python3 tools/gen_opcode_tables.py 3.11 3.12        # just these
    python3 tools/gen_opcode_tables.py --python 3.8=PATH/TO/python3.8 --out OUTDIR
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

VERSIONS = ((3, 8), (3, 9), (3, 10), (3, 11), (3, 12), (3, 13), (3, 14), (3, 15))

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                           "src", "depyf", "bytecode", "versions", "data")

# ---------------------------------------------------------------------------
# The probe. It runs inside the target interpreter, so it must stay valid
# Python 3.8 and only report raw facts; every decision is made below, in one
# place, where it can be read and tested.
PROBE = r'''
import dis, importlib, importlib.util, json, marshal, opcode, os, sys

SNIPPETS = [
"""
def f(a, b, c, *args, k=1, **kw):
    for x in a:
        if x >= b:
            print(x, *args)
    while c:
        c = c - 1
    c += 1
    y = a >= b
    try:
        g()
    except E:
        pass
    with a as z:
        a.append(z)
    def inner(q=1, *, r=2) -> int:
        return a.real + q + c
    return [i for i in a if i is not None], y, f"{a!r:>{b}}", inner
""",
"""
class K:
    def m(self):
        return super().m()
""",
"""
def gen(a):
    yield from a
async def co(a):
    async for x in a:
        await x
    async with a:
        pass
""",
"""
def pairs(a, b):
    a, b = b, a
    return a + b
""",
"""
try:
    pass
except* ValueError:
    pass
""",
"from m import *",
# Each of these compiles only where its syntax exists; they show dis's reading
# of the ops newer versions added (t-strings 3.14, lazy imports 3.15).
"""
async def co2(a, b):
    async for x in a:
        assert x is not b, x in b
    async with a as m:
        return [m], all(y for y in m)
""",
"""
def tpl(a):
    return t"{a!r:>{a}}"
""",
"""
lazy import m2
import m3
""",
]


def opt(name, default):
    return getattr(opcode, name, default)


def bootstrap_comments():
    # Every magic number ever assigned is only written down in these comments,
    # which 3.14 moved from _bootstrap_external.py into a C header.
    path = os.path.join(os.path.dirname(importlib.__file__), "_bootstrap_external.py")
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if line.startswith("#") and "Python 3." in line]
    if lines:
        return lines
    import sysconfig
    header = os.path.join(sysconfig.get_path("include"), "internal", "pycore_magic_number.h")
    if not os.path.exists(header):
        return []
    with open(header, encoding="utf-8") as f:
        return ["# " + line.strip() for line in f if line.strip().startswith("Python 3.")]


def backward_jumps():
    # 3.13+ dis names its backward jumps in one function; before, None (the
    # generator knows those versions' rule).
    test = getattr(dis, "_is_backward_jump", None)
    if test is None:
        return None
    return sorted(name for name, op in opcode.opmap.items() if op < 256 and test(op))


def common_constants():
    # LOAD_COMMON_CONSTANT (3.14+): each constant by builtin name or as a JSON
    # literal, and what dis gives as its argval (the index, or from 3.15 the object).
    values = opt("_common_constants", None)
    if values is None:
        return None
    import builtins
    described = []
    for value in values:
        name = getattr(value, "__name__", None)
        if name is not None and getattr(builtins, name, None) is value:
            described.append({"builtin": name})
        else:
            json.dumps(value)
            described.append(value)
    resolver = dis.ArgResolver(co_consts=(), names=(), varname_from_oparg=None)
    argval, _ = resolver.get_argval_argrepr(opcode.opmap["LOAD_COMMON_CONSTANT"], 0, 0)
    return {"values": described, "argval": "index" if argval == 0 else "object"}


def specialized_names():
    names = set(opt("_specialized_instructions", ()))
    names.update(opt("_specialized_opmap", {}))
    for family in opt("_specializations", {}).values():
        names.update(family)
    return sorted(names)


def cache_entries():
    # A list indexed by opcode in 3.11/3.12, a dict keyed by name in 3.13 (a
    # frozendict, no dict subclass, in 3.15).
    raw = opt("_inline_cache_entries", {})
    if hasattr(raw, "items"):
        return dict(raw.items())
    return {opcode.opname[op]: n for op, n in enumerate(raw) if n}


def code_objects():
    todo = []
    for source in SNIPPETS:
        try:
            todo.append(compile(source, "<probe>", "exec"))
        except SyntaxError:
            pass  # syntax this version lacks (except*)
    while todo:
        code = todo.pop(0)
        todo.extend(c for c in code.co_consts if hasattr(c, "co_code"))
        yield code


def stack_effects():
    """Each opcode's dis.stack_effect, (no jump, jump), for the arguments 0-255
    and a few larger ones (None where dis refuses)."""
    has_arg = set(getattr(opcode, "hasarg", ())) or set(range(opcode.HAVE_ARGUMENT, 256))
    specialized = set(specialized_names())
    out = {}
    for name, op in sorted(opcode.opmap.items()):
        if op >= 256 or name in specialized or name.startswith("INSTRUMENTED_"):
            continue
        args = list(range(256)) + [256, 257, 512, 769, 1024] if op in has_arg else [None]
        rows = []
        for arg in args:
            try:
                if arg is None:
                    rows.append([dis.stack_effect(op, jump=False), dis.stack_effect(op, jump=True)])
                else:
                    rows.append([dis.stack_effect(op, arg, jump=False),
                                 dis.stack_effect(op, arg, jump=True)])
            except (ValueError, TypeError):
                rows.append(None)
        out[name] = rows
    return out


def disassembly():
    rows = []
    for code in code_objects():
        for ins in dis.get_instructions(code):
            argval = ins.argval if type(ins.argval) is int else None
            rows.append([ins.opname, ins.opcode, ins.offset, ins.arg, argval, ins.argrepr])
    return rows


def main():
    lists = ("hasarg", "hasconst", "hasname", "hasjrel", "hasjabs", "hasjump",
             "haslocal", "hasfree", "hascompare", "hasexc")
    print(json.dumps({
        "version": list(sys.version_info[:2]),
        "magic": int.from_bytes(importlib.util.MAGIC_NUMBER[:2], "little"),
        "magic_comments": bootstrap_comments(),
        "opmap": opcode.opmap,
        "HAVE_ARGUMENT": opcode.HAVE_ARGUMENT,
        "lists": {name: list(getattr(opcode, name)) for name in lists if hasattr(opcode, name)},
        "cmp_op": list(opcode.cmp_op),
        "nb_ops": [list(x) for x in opt("_nb_ops", [])],
        "intrinsic1": list(opt("_intrinsic_1_descs", [])),
        "intrinsic2": list(opt("_intrinsic_2_descs", [])),
        "specialized": specialized_names(),
        "cache": cache_entries(),
        "make_function_flags": list(getattr(dis, "FUNCTION_ATTR_FLAGS",
                                            getattr(dis, "MAKE_FUNCTION_FLAGS", ()))),
        "compiler_flags": {str(k): v for k, v in dis.COMPILER_FLAG_NAMES.items()},
        "marshal_version": marshal.version,
        "backward_jumps": backward_jumps(),
        "common_constants": common_constants(),
        "special_method_names": list(opt("_special_method_names", [])),
        "stack_effects": stack_effects(),
        "disassembly": disassembly(),
    }))


main()
'''

# ---------------------------------------------------------------------------
# Hand-kept facts: what neither opcode nor dis exposes (marshal.c, the code
# object layout, the compiler's encodings). check_against_dis() verifies the
# ones dis output can show.

# Python/marshal.c, r_object() case TYPE_CODE. 3.8/3.9 write co_lnotab where
# 3.10 writes co_linetable; both are called "linetable" here.
CODE_FIELDS_3_8 = (
    "argcount", "posonlyargcount", "kwonlyargcount", "nlocals", "stacksize", "flags",
    "code", "consts", "names", "varnames", "freevars", "cellvars", "filename", "name",
    "firstlineno", "linetable",
)
# 3.11 dropped nlocals and merged varnames/freevars/cellvars into localsplus.
CODE_FIELDS_3_11 = (
    "argcount", "posonlyargcount", "kwonlyargcount", "stacksize", "flags", "code",
    "consts", "names", "localsplusnames", "localspluskinds", "filename", "name",
    "qualname", "firstlineno", "linetable", "exceptiontable",
)

# Include/internal/pycore_code.h CO_FAST_*; HIDDEN appeared with 3.12's
# inlined comprehensions.
LOCALSPLUS_KINDS = (("hidden", 0x10, (3, 12)), ("local", 0x20, (3, 11)),
                    ("cell", 0x40, (3, 11)), ("free", 0x80, (3, 11)))


def version_facts(version):
    return {
        "code_fields": list(CODE_FIELDS_3_11 if version >= (3, 11) else CODE_FIELDS_3_8),
        # 3.10 switched jump arguments from bytes to 2-byte code units.
        "jump_unit": 1 if version <= (3, 9) else 2,
        "jump_skips_caches": version >= (3, 12),
        "locals_are_localsplus": version >= (3, 11),
        "exception_table": version >= (3, 11),
        # co_lnotab (3.8/3.9), PEP 626 co_linetable (3.10), PEP 657 location
        # table (3.11+): three encodings of the marshalled "linetable" field.
        "linetable_format": ("lnotab" if version <= (3, 9) else
                             "linetable" if version == (3, 10) else "locations"),
        # 3.12 packs a jump mask into COMPARE_OP's low 4 bits; 3.13 adds the
        # to-bool bit 16 above that mask.
        "compare_shift": 0 if version <= (3, 11) else 4 if version == (3, 12) else 5,
        "compare_bool_bit": 16 if version >= (3, 13) else 0,
        "null_repr": "suffix" if version >= (3, 13) else "prefix",
        # What a with statement raises when the manager lacks __enter__/__exit__
        # (3.11's BEFORE_WITH made it a TypeError).
        "special_lookup_error": "AttributeError" if version <= (3, 10) else "TypeError",
        # 3.10's MATCH_CLASS/MATCH_KEYS also push a bool (MATCH_CLASS keeping the
        # subject below it); 3.11+ push the result alone, None for no match.
        "match_pushes_bool": version == (3, 10),
        # 3.8's BEFORE_ASYNC_WITH looks __aexit__ up before __aenter__ (which a
        # manager lacking both names in its AttributeError); so do 3.14's
        # LOAD_SPECIALs, for ``with`` too.
        "aexit_looked_up_first": version == (3, 8) or version >= (3, 14),
        "exit_looked_up_first": version >= (3, 14),
        # 3.14's TypeError ends "(missed __exit__ method)", naming the one missing.
        "special_lookup_names_missing": version >= (3, 14),
        "localsplus_kinds": {name: bit for name, bit, since in LOCALSPLUS_KINDS
                             if version >= since},
    }


# ---------------------------------------------------------------------------
# Argument kinds, in the precedence of that version's dis
# (_get_instructions_bytes up to 3.12, ArgResolver.get_argval_argrepr in 3.13).

# hasname ops whose argument dis reads differently (3.15's IMPORT_NAME keeps
# lazy/eager flags in its two low bits).
NAME_KINDS = (("LOAD_GLOBAL", "global", (3, 11)), ("LOAD_ATTR", "attr", (3, 12)),
              ("LOAD_SUPER_ATTR", "super_attr", (3, 12)), ("IMPORT_NAME", "import_name", (3, 15)))
LOCAL_PAIRS = ("LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW_LOAD_FAST_BORROW",
               "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST")
# Ops older than the dis that names their argument: (name, kind, since).
VERSIONED_KINDS = (("IS_OP", "is_op", (3, 14)), ("CONTAINS_OP", "contains_op", (3, 14)))
# Ops dis special-cases by identity; each exists only in versions whose dis
# handles it, so no version test is needed.
OTHER_KINDS = {
    "LOAD_COMMON_CONSTANT": "common_constant",
    "LOAD_SPECIAL": "special_method",
    "FORMAT_VALUE": "format_value",
    "CONVERT_VALUE": "convert_value",
    "MAKE_FUNCTION": "make_function",
    "SET_FUNCTION_ATTRIBUTE": "make_function",
    "BINARY_OP": "binary_op",
    "CALL_INTRINSIC_1": "intrinsic1",
    "CALL_INTRINSIC_2": "intrinsic2",
}


def is_backward_jump(raw, name):
    # 3.13+ dis lists them (3.14 adds END_ASYNC_FOR, "not really a jump, but it
    # has a target"); 3.11/3.12 dis test a substring, which also catches 3.11's
    # POP_JUMP_BACKWARD_IF_*.
    if raw.get("backward_jumps") is not None:
        return name in raw["backward_jumps"]
    return "JUMP_BACKWARD" in name


def has_arg(version, op, raw):
    if version >= (3, 13):
        # 3.13 numbers ops by name, so some ops above HAVE_ARGUMENT take none.
        return op in raw["lists"]["hasarg"]
    if version == (3, 12):
        by_threshold = op >= raw["HAVE_ARGUMENT"]
        if by_threshold != (op in raw["lists"]["hasarg"]):
            raise ValueError("3.12 hasarg disagrees with HAVE_ARGUMENT for op %d" % op)
    return op >= raw["HAVE_ARGUMENT"]


def arg_kind(version, name, op, raw):
    lists = raw["lists"]

    def within(key):
        return op in lists.get(key, ())

    if within("hasconst"):
        return "const"
    if within("hasname"):
        for special, kind, since in NAME_KINDS:
            if name == special and version >= since:
                return kind
        return "name"
    if within("hasjabs"):
        return "jump_abs"
    if within("hasjrel") or within("hasjump"):
        return "jump_back" if is_backward_jump(raw, name) else "jump_fwd"
    if name in LOCAL_PAIRS:
        return "local_pair"
    if within("haslocal"):
        return "local"
    if within("hasfree"):
        return "free"
    if within("hascompare"):
        return "compare"
    for special, kind, since in VERSIONED_KINDS:
        if name == special and version >= since:
            return kind
    return OTHER_KINDS.get(name, "int")


def opcode_entries(version, raw):
    specialized = set(raw["specialized"])
    entries = []
    # Pseudo-ops (>= 256) exist only inside the compiler; specialized ops only
    # in the adaptive interpreter's private copy of the code, never in
    # co_code or a .pyc.
    for name, op in sorted(raw["opmap"].items(), key=lambda item: item[1]):
        if op >= 256 or name in specialized:
            continue
        arg = has_arg(version, op, raw)
        entries.append({
            "op": op,
            "name": name,
            "has_arg": arg,
            "cache": raw["cache"].get(name, 0),
            "kind": arg_kind(version, name, op, raw) if arg else "none",
        })
    seen = [entry["op"] for entry in entries]
    if len(seen) != len(set(seen)):
        raise ValueError("%d.%d: duplicate opcode numbers" % version)
    return entries


MAGIC_COMMENT = re.compile(r"#\s+Python\s+3\.(\d+)\S*\s+(\d+)\b")


def magic_range(version, raw):
    numbers = []
    for line in raw["magic_comments"]:
        match = MAGIC_COMMENT.match(line)
        if match and int(match.group(1)) == version[1]:
            numbers.append(int(match.group(2)))
    if not numbers:
        raise ValueError("%d.%d: no magic numbers in _bootstrap_external.py comments" % version)
    lo, hi = min(numbers), max(numbers)
    if not lo <= raw["magic"] <= hi:
        raise ValueError("%d.%d: release magic %d outside [%d, %d]"
                         % (version + (raw["magic"], lo, hi)))
    return [lo, hi]


def build_table(version, raw):
    """The table of ``version`` from the probe's output ``raw``."""
    if tuple(raw["version"]) != version:
        raise ValueError("asked for %d.%d, the interpreter is %d.%d"
                         % (version + tuple(raw["version"])))
    table = {
        "version": list(version),
        "magic": raw["magic"],
        "marshal_version": raw["marshal_version"],
        "magic_range": magic_range(version, raw),
        "hasarg_threshold": raw["HAVE_ARGUMENT"],
        "opcodes": opcode_entries(version, raw),
        "cmp_op": raw["cmp_op"],
        # Each pair is (name, symbol), e.g. ["NB_ADD", "+"]; dis shows the symbol.
        "binary_ops": raw["nb_ops"],
        "intrinsic1": raw["intrinsic1"],
        "intrinsic2": raw["intrinsic2"],
        "make_function_flags": raw["make_function_flags"],
        "compiler_flags": {k: v for k, v in sorted(raw["compiler_flags"].items(),
                                                   key=lambda item: int(item[0]))},
    }
    if raw.get("common_constants") is not None:
        table["common_constants"] = raw["common_constants"]["values"]
        table["common_constant_argval"] = raw["common_constants"]["argval"]
    if raw.get("special_method_names"):
        table["special_method_names"] = raw["special_method_names"]
    table["stack_effects"] = {name: compress_effects(rows)
                              for name, rows in sorted(raw["stack_effects"].items())}
    table.update(version_facts(version))
    return table


#: the larger arguments the probe samples past 0-255
_LARGE_ARGS = (256, 257, 512, 769, 1024)


def compress_effects(rows):
    """A short description of one opcode's stack effects (see
    ``depyf.bytecode.versions.VersionTable.stack_effect``), from the probe's rows.

    >>> compress_effects([[1, 1]])
    {'c': [1, 1]}
    >>> compress_effects([[1 - a, 1 - a] for a in list(range(256)) + [256, 257, 512, 769, 1024]])
    {'l': [1, 1, -1, -1]}
    """
    if len(rows) == 1:
        return {"c": rows[0]} if rows[0] is not None else {"x": 1}
    args = list(range(256)) + list(_LARGE_ARGS)
    known = [(a, r) for a, r in zip(args, rows) if r is not None]
    if not known:
        return {"x": 1}
    small = [(a, r) for a, r in known if a < 256]
    if all(r == known[0][1] for _, r in known):
        return {"c": known[0][1]}
    if len(small) > 1 and small[0][0] == 0:
        e0 = small[0][1]
        d = [small[1][1][k] - e0[k] for k in (0, 1)]
        if all(r[k] == e0[k] + a * d[k] for a, r in known for k in (0, 1)):
            return {"l": e0 + d}
        if all(r[k] == e0[k] + a * d[k] for a, r in small for k in (0, 1)):
            # linear in the low byte, each higher byte counting once (UNPACK_EX)
            if all(r[k] == e0[k] + (a & 0xFF) * d[k] + (a >> 8) * d[k] for a, r in known for k in (0, 1)):
                return {"b": e0 + d}
    for mask in (1, 3, 7, 15, 31, 63, 127, 255):
        base = {a: r for a, r in small if a <= mask}
        if len(base) == mask + 1 and all(base[a & mask] == r for a, r in known):
            return {"m": mask, "e": [base[a] for a in range(mask + 1)]}
    return {"t": [r for _, r in small]} if len(small) == 256 else {"x": 1}


# ---------------------------------------------------------------------------
# Cross-check against the interpreter's own disassembly.

def jump_target(table, entry, offset, arg):
    unit = table["jump_unit"]
    if entry["kind"] == "jump_abs":
        return arg * unit
    sign = -1 if entry["kind"] == "jump_back" else 1
    target = offset + 2 + sign * arg * unit
    if table["jump_skips_caches"]:
        target += 2 * entry["cache"]
    return target


def expected_problem(table, entry, offset, arg, argval, argrepr):
    """Why dis's rendering contradicts the table, or None."""
    kind = entry["kind"]
    if kind == "none":
        return None if arg is None and argrepr == "" else "expected no argument"
    if arg is None:
        return "dis shows no argument"
    if kind == "int":
        return None if argval == arg and argrepr == "" else "not a plain integer"
    if kind.startswith("jump_"):
        want = jump_target(table, entry, offset, arg)
        return None if argval == want else "target %s, table says %s" % (argval, want)
    if kind == "compare":
        base = table["cmp_op"][arg >> table["compare_shift"]]
        coerced = bool(arg & table["compare_bool_bit"])
        return None if argrepr == ("bool(%s)" % base if coerced else base) else "compare"
    if kind in ("global", "attr", "super_attr"):
        if bool(arg & 1) != ("NULL" in argrepr):
            return "NULL bit"
        if arg & 1 and argrepr.startswith("NULL") != (table["null_repr"] == "prefix"):
            return "NULL position"
        return None
    if kind == "binary_op":
        return None if argrepr == table["binary_ops"][arg][1] else "binary op"
    if kind in ("intrinsic1", "intrinsic2"):
        return None if argrepr == table[kind][arg] else "intrinsic"
    if kind == "make_function":
        flags = [s for i, s in enumerate(table["make_function_flags"]) if arg & (1 << i)]
        return None if argrepr == ", ".join(flags) else "function flags"
    if kind == "local_pair":
        return None if argrepr.count(", ") == 1 else "local pair"
    if kind == "import_name":
        flag = " + lazy" if arg & 1 else " + eager" if arg & 2 else ""
        return None if argrepr.endswith(flag) and (flag or "+" not in argrepr) else "import flags"
    if kind in ("is_op", "contains_op"):
        words = ("is", "is not") if kind == "is_op" else ("in", "not in")
        return None if argrepr == words[bool(arg)] else "negation"
    if kind == "special_method":
        return None if argrepr == table["special_method_names"][arg] else "special method"
    if kind == "common_constant":
        value = table["common_constants"][arg]
        # A class shows its name, a builtin function its repr.
        want = ((value["builtin"], "<built-in function %s>" % value["builtin"])
                if isinstance(value, dict) else (repr(value),))
        if argrepr not in want:
            return "common constant %r" % (want,)
        if table["common_constant_argval"] == "index" and argval != arg:
            return "common constant argval"
        return None
    return None  # const/name/local/free/format: an index, nothing to compute


def check_against_dis(table, raw):
    by_name = {entry["name"]: entry for entry in table["opcodes"]}
    checked = set()
    for name, op, offset, arg, argval, argrepr in raw["disassembly"]:
        entry = by_name.get(name)
        if entry is None or entry["op"] != op:
            raise ValueError("%s: dis shows %s (%d), not in the table" % (table_name(table), name, op))
        problem = expected_problem(table, entry, offset, arg, argval, argrepr)
        if problem:
            raise ValueError("%s: %s at offset %d (arg %r, argval %r, argrepr %r): %s"
                             % (table_name(table), name, offset, arg, argval, argrepr, problem))
        checked.add(entry["kind"])
    # Without these the samples proved nothing about the hand-kept facts.
    needed = {"jump_fwd", "compare", "jump_back" if table["version"] >= [3, 11] else "jump_abs"}
    needed |= {entry["kind"] for entry in table["opcodes"]
               if entry["kind"] in NEW_KINDS_TO_SEE}
    if not needed <= checked:
        raise ValueError("%s: samples never exercised %s" % (table_name(table), sorted(needed - checked)))


# Kinds whose rendering the samples must show wherever a table has them.
NEW_KINDS_TO_SEE = frozenset({"import_name", "is_op", "contains_op", "special_method",
                              "common_constant"})


def table_name(table):
    return "%d.%d" % tuple(table["version"])


# ---------------------------------------------------------------------------
# Output: one opcode per line so a regenerated table diffs by instruction.

def render_value(value):
    if isinstance(value, dict) and value:
        items = ["%s: %s" % (json.dumps(k), json.dumps(v)) for k, v in value.items()]
        return "{\n  " + ",\n  ".join(items) + "\n }"
    if isinstance(value, list) and any(isinstance(x, (list, dict)) for x in value):
        return "[\n  " + ",\n  ".join(json.dumps(x) for x in value) + "\n ]"
    return json.dumps(value)


def render_table(table):
    body = ",\n".join(" %s: %s" % (json.dumps(key), render_value(table[key]))
                      for key in sorted(table))
    text = "{\n" + body + "\n}\n"
    assert json.loads(text) == table
    return text


# ---------------------------------------------------------------------------
# Interpreters.

def pyenv_root():
    env = os.environ.get("PYENV_ROOT")
    if env and os.path.isdir(env):
        return env
    exe = shutil.which("pyenv")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "root"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             universal_newlines=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    root = out.stdout.strip()
    return root if out.returncode == 0 and os.path.isdir(root) else None


def debian_python_root():
    """Where scripts/debian_python.sh unpacks its interpreters (the rule of
    depyf.verify.interpreters.debian_python_root, which this tool may not import)."""
    env = os.environ.get("DEPYF_DEBIAN_PYTHONS")
    if env:
        return env
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "depyf", "debian-python")


def find_debian_interpreter(version):
    """The unpacked Debian ``python3.X`` for ``version``, or None."""
    folder = os.path.join(debian_python_root(), "%d.%d" % version)
    exe = os.path.join(folder, "usr", "bin", "python%d.%d" % version)
    # .package-version is written once the unpacked tree is complete.
    if os.path.isfile(os.path.join(folder, ".package-version")) and os.access(exe, os.X_OK):
        return exe
    return None


def find_interpreter(version, root=None):
    """pyenv's newest ``python3.X`` for ``version``, else the Debian build, or None."""
    return find_pyenv_interpreter(version, root) or find_debian_interpreter(version)


def find_pyenv_interpreter(version, root=None):
    """pyenv's newest ``python3.X`` for ``version``, or None."""
    root = root or pyenv_root()
    if root is None:
        return None
    folder = os.path.join(root, "versions")
    # Only plain releases: "3.13.0t" or "3.11-dev" are other builds.
    pattern = re.compile(r"%d\.%d\.(\d+)" % version)
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    patches = sorted(((int(m.group(1)), name) for name in names
                      for m in [pattern.fullmatch(name)] if m), reverse=True)
    for _patch, name in patches:
        exe = os.path.join(folder, name, "bin", "python%d.%d" % version)
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            return exe
    return None


def parse_version(text):
    match = re.fullmatch(r"(\d+)\.(\d+)", text.strip())
    if match is None:
        raise argparse.ArgumentTypeError("not a minor version: %r" % text)
    version = (int(match.group(1)), int(match.group(2)))
    if version not in VERSIONS:
        raise argparse.ArgumentTypeError("unsupported version %s" % text)
    return version


def parse_override(text):
    version, sep, path = text.partition("=")
    if not sep or not path:
        raise argparse.ArgumentTypeError("expected 3.X=/path/to/python, got %r" % text)
    return parse_version(version), path


def run_probe(python):
    # -I: no user site-packages or PYTHON* variables, so the answer depends
    # on the interpreter alone.
    out = subprocess.run([python, "-I", "-c", PROBE], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError("probe failed under %s:\n%s" % (python, out.stderr))
    return json.loads(out.stdout)


def generate(version, python, out_dir):
    """Probe ``python``, build and check the table of ``version``, write it; return its path."""
    raw = run_probe(python)
    table = build_table(version, raw)
    check_against_dis(table, raw)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "py%d%d.json" % version)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(render_table(table))
    return path, table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("versions", nargs="*", type=parse_version,
                        help="minor versions to generate (default: all supported)")
    parser.add_argument("--python", action="append", type=parse_override, default=[],
                        metavar="3.X=PATH", help="interpreter to use for a version")
    parser.add_argument("--out", default=DEFAULT_OUT, help="output folder")
    args = parser.parse_args(argv)
    overrides = dict(args.python)
    for version in args.versions or VERSIONS:
        python = overrides.get(version) or find_interpreter(version)
        if python is None:
            print("skip %d.%d: no interpreter found (pyenv, scripts/debian_python.sh or --python); "
                  "table left as is" % version)
            continue
        path, table = generate(version, python, args.out)
        print("%d.%d: %d opcodes -> %s" % (version + (len(table["opcodes"]), os.path.normpath(path))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
