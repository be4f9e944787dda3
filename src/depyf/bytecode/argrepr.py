"""How an instruction's argument reads in a listing, as ``dis`` prints it."""
from __future__ import annotations

from .code import CodeRecord

_CONVERSION_NAMES = {None: "", str: "str", repr: "repr", ascii: "ascii"}


def format_argrepr(ins, table) -> str:
    """The ``argrepr`` text of ``ins`` under ``table``'s conventions."""
    if ins.arg is None:
        return ""
    formatter = _FORMATTERS.get(ins.kind)
    return formatter(ins, table) if formatter else ""


def const_repr(value) -> str:
    if isinstance(value, CodeRecord):
        return '<code object %s, file "%s", line %d>' % (value.name, value.filename,
                                                         value.firstlineno)
    try:
        return repr(value)
    except ValueError:
        # ints past sys.get_int_max_str_digits() refuse to print
        return "<int of %d bits>" % value.bit_length()


def _with_null(ins, table, marker):
    if not ins.arg & 1:
        return ins.argval
    if table.null_repr == "suffix":
        return "%s + %s" % (ins.argval, marker)
    return "%s + %s" % (marker, ins.argval)


def _compare(ins, table):
    text = ins.argval
    if table.compare_bool_bit and ins.arg & table.compare_bool_bit:
        text = "bool(%s)" % text
    return text


def _format_value(ins, table):
    conversion, has_spec = ins.argval
    parts = [_CONVERSION_NAMES[conversion]] if conversion else []
    if has_spec:
        parts.append("with format")
    return ", ".join(parts)


def _common_constant(ins, table):
    value = table.common_constants[ins.arg]
    # dis names a class and shows any other value's repr.
    return value.__name__ if isinstance(value, type) else repr(value)


def _import_name(ins, table):
    flag = " + lazy" if ins.arg & 1 else " + eager" if ins.arg & 2 else ""
    return ins.argval + flag


def _jump(ins, table):
    # END_ASYNC_FOR (3.14+) is no jump, but names where its loop starts.
    return ("from %d" if ins.opname == "END_ASYNC_FOR" else "to %d") % ins.argval


def _flags(ins, table):
    return ", ".join(name for bit, name in enumerate(table.make_function_flags)
                     if ins.arg & (1 << bit))


_FORMATTERS = {
    "const": lambda ins, t: const_repr(ins.argval),
    "name": lambda ins, t: ins.argval,
    "local": lambda ins, t: ins.argval,
    "free": lambda ins, t: ins.argval,
    "local_pair": lambda ins, t: "%s, %s" % ins.argval,
    "global": lambda ins, t: _with_null(ins, t, "NULL"),
    "attr": lambda ins, t: _with_null(ins, t, "NULL|self"),
    "super_attr": lambda ins, t: _with_null(ins, t, "NULL|self"),
    "jump_abs": _jump,
    "jump_fwd": _jump,
    "jump_back": _jump,
    "compare": _compare,
    "binary_op": lambda ins, t: t.binary_ops[ins.arg][1],
    "format_value": _format_value,
    "convert_value": lambda ins, t: _CONVERSION_NAMES[ins.argval],
    "make_function": _flags,
    "intrinsic1": lambda ins, t: t.intrinsic1[ins.arg],
    "intrinsic2": lambda ins, t: t.intrinsic2[ins.arg],
    "import_name": _import_name,
    "is_op": lambda ins, t: "is not" if ins.arg else "is",
    "contains_op": lambda ins, t: "not in" if ins.arg else "in",
    "special_method": lambda ins, t: t.special_method_names[ins.arg],
    "common_constant": _common_constant,
}
