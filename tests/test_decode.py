"""Decoder behaviour beyond what the conformance comparison covers: errors on
malformed code, jump references, and the small table decoders."""
import sys
import types

import pytest

from depyf.bytecode import DecodeError, decode, from_live, get_table
from depyf.bytecode.exceptions import parse_exception_table
from depyf.bytecode.linetable import line_table, positions_table

HOST = sys.version_info[:2]
TABLE = get_table(HOST)


def op(name):
    return TABLE.opcode_by_name[name].op


def record_with(code_bytes, consts=(None,)):
    rec = from_live(compile("pass", "<t>", "exec"))
    rec.code = bytes(code_bytes)
    rec.consts = consts
    rec.linetable = b""
    rec.exceptiontable = b""
    rec.path = "t.pyc"
    rec.code_offset = 100
    return rec


def test_jump_targets_are_instruction_objects():
    def f(n):
        total = 0
        for i in range(n):
            if i % 2:
                continue
            total += i
        return total
    bc = decode(f)
    jumps = [i for i in bc if i.is_jump]
    assert jumps
    for ins in jumps:
        assert ins.target is bc.at(ins.argval)
        assert ins.target in bc.instructions


def test_extended_arg_folded():
    src = "def f():\n" + "".join("    x%d = %d\n" % (i, i) for i in range(400)) + "    return x399\n"
    ns = {}
    exec(compile(src, "<big>", "exec"), ns)
    bc = decode(ns["f"])
    assert all(i.opname != "EXTENDED_ARG" for i in bc)
    big = [i for i in bc if i.arg is not None and i.arg > 255]
    assert big and all(i.start_offset == i.offset - 2 for i in big)
    assert bc.at(big[0].start_offset) is big[0]


def test_unknown_opcode_names_offset():
    unused = next(n for n in range(256) if TABLE.ops[n] is None)
    with pytest.raises(DecodeError) as info:
        decode(record_with([op("NOP"), 0, unused, 0]))
    msg = str(info.value)
    assert "t.pyc" in msg and "opcode %d" % unused in msg and "instruction offset 2" in msg
    assert info.value.offset == 100 + 5 + 2


def test_constant_index_out_of_range():
    with pytest.raises(DecodeError, match="constant index 5 out of range"):
        decode(record_with([op("LOAD_CONST"), 5, op("RETURN_VALUE"), 0]))


@pytest.mark.parametrize("as_ops", [False, True])
def test_flagged_name_arguments(as_ops):
    # 3.11+ LOAD_GLOBAL keeps its NULL flag in the low bit: both flag values
    # read names[arg >> 1], and one past the names is a located error
    from depyf.bytecode.decode import decode_ops
    table = get_table((3, 11))
    load, cache = table.opcode_by_name["LOAD_GLOBAL"].op, table.cache_op
    ret = table.opcode_by_name["RETURN_VALUE"].op
    rec = record_with([load, 3] + [cache, 0] * table.opcode_by_name["LOAD_GLOBAL"].cache
                      + [load, 0] + [cache, 0] * table.opcode_by_name["LOAD_GLOBAL"].cache
                      + [ret, 0])
    rec.version = (3, 11)
    rec.names = ("f", "g")
    run = decode_ops if as_ops else decode
    values = [getattr(i, "arg" if as_ops else "argval") for i in run(rec)]
    assert values[:2] == ["g", "f"]
    rec.names = ("f",)
    with pytest.raises(DecodeError, match="name index 1 out of range"):
        run(rec)


@pytest.mark.parametrize("as_ops", [False, True])
def test_caches_past_the_end(as_ops):
    # the last instruction's inline caches must fit in the code
    from depyf.bytecode.decode import decode_ops
    table = get_table((3, 12))
    info = table.opcode_by_name["LOAD_ATTR"]      # (the most caches: the end test's worst case)
    run = decode_ops if as_ops else decode
    for missing in range(1, info.cache + 1):
        rec = record_with([table.opcode_by_name["LOAD_CONST"].op, 0, info.op, 0]
                          + [table.cache_op, 0] * (info.cache - missing))
        rec.version = (3, 12)
        rec.names = ("a",)
        with pytest.raises(DecodeError, match="LOAD_ATTR's inline cache runs past the end"):
            run(rec)


def test_rewrite_each_follows_renames_and_replacements():
    # a one-op rewrite that renames its op hands it to the later rewrites of the
    # new name; each replacement meets the later rewrites too; what aimed at a
    # dropped op aims at the next op kept
    from depyf.bytecode.ir import Function, Op
    from depyf.bytecode.edits import rewrite_each

    def rename(op, table):
        op.name = "B"

    def split(op, table):
        return [Op("C"), Op("D")]

    def drop(op, table):
        return []

    def mark(op, table):
        op.arg = "seen"

    a, gone, keep = Op("A"), Op("C"), Op("KEEP")
    jump, jump2 = Op("JUMP", target=a), Op("JUMP", target=gone)
    f = Function(None, [jump, jump2, a, gone, keep])
    rewrite_each(f, None, [(frozenset({"A"}), rename), (frozenset({"B"}), split),
                           (frozenset({"C"}), drop), (frozenset({"A", "D"}), mark)])
    assert [(op.name, op.arg) for op in f.ops] == [
        ("JUMP", None), ("JUMP", None), ("D", "seen"), ("KEEP", None)]
    assert jump.target is f.ops[2] and jump2.target is keep


def test_jump_into_nowhere():
    with pytest.raises(DecodeError, match="starts no instruction"):
        decode(record_with([op("JUMP_FORWARD"), 40, op("NOP"), 0]))


def test_odd_length_and_dangling_extended_arg():
    with pytest.raises(DecodeError, match="odd"):
        decode(record_with([op("NOP"), 0, op("NOP")]))
    with pytest.raises(DecodeError, match="EXTENDED_ARG at the end"):
        decode(record_with([op("NOP"), 0, TABLE.extended_arg, 1]))


def test_decode_accepts_functions_methods_and_code():
    class C:
        def m(self):
            return 1
    assert decode(C().m).code.name == "m"
    assert decode(C.m.__code__).code.name == "m"
    with pytest.raises(TypeError):
        decode(42)


def test_lnotab_odd_increments():
    # 3.8 splits a 300-byte gap into 255 + 45; units must not drift.
    lines = line_table(bytes([255, 0, 45, 1, 2, 1]), "lnotab", 10, 304)
    assert lines[149] == 10 and lines[150] == 11 and lines[151] == 12


def test_linetable_310_no_line_marker():
    lines = line_table(bytes([4, 1, 2, 0x80, 2, 1]), "linetable", 1, 8)
    assert lines == [2, 2, None, 3]


def test_positions_all_entry_forms():
    data = bytes([
        0x80 | (0 << 3) | 0, 0x12,              # short form: col 1, end 3
        0x80 | (11 << 3) | 1, 4, 9,             # one-line form, line +1, cols 4-9, 2 units
        0x80 | (13 << 3) | 0, 0x04,             # no columns, line +2
        0x80 | (14 << 3) | 0, 0x03, 2, 1, 0,    # long form: line -1, end +2, col 0, end None
        0x80 | (15 << 3) | 0,                   # no location
    ])
    assert positions_table(data, 10, 12) == [
        (10, 10, 1, 3), (11, 11, 4, 9), (11, 11, 4, 9), (13, 13, None, None),
        (12, 14, 0, None), (None, None, None, None)]


def test_exception_table_varints():
    entries = parse_exception_table(bytes([0x82, 0x41, 0x00, 0x0a, 0x03]))
    assert [(e.start, e.end, e.target, e.depth, e.lasti) for e in entries] == [(4, 4 + 128, 20, 1, True)]


def test_ops_decoded_directly_match_instructions():
    # normalize() builds Ops in the decoder; they must say what the Instructions say
    from depyf.bytecode.decode import decode_ops
    from depyf.bytecode.normalize import to_ops

    def f(xs):
        total = 0
        for x in xs:
            try:
                total += 1 / x
            except ZeroDivisionError:
                continue
        return total

    def shape(func):
        index = {id(o): i for i, o in enumerate(func.ops)}
        return [(o.name, getattr(o.arg, "qualname", o.arg), o.line, o.offset, o.extra,
                 index.get(id(o.target)),
                 None if o.handler is None else (index[id(o.handler.target)], o.handler.depth))
                for o in func.ops]
    def g(items, lock):
        # a generator (resumes after each yield), calls (3.11's PRECALL), cells
        with lock:
            for item in items:
                yield (lambda: item)()

    from depyf.bytecode.edits import remove_ops
    from depyf.bytecode.versions import SILENT_OPS
    for fn in (f, g):
        plain = to_ops(decode(fn))
        # decode_ops leaves out the silent ops, aiming what aimed at one at the next op
        remove_ops(plain, [o for o in plain.ops if o.name in SILENT_OPS])
        assert shape(to_ops(decode_ops(fn))) == shape(plain)


def test_location_lines_match_positions():
    # the decoder's lines of a 3.11+ location table are the positions' lines
    from depyf.bytecode.linetable import location_lines
    code = compile("def f(a, b):\n    x = (a +\n         b)\n    return [y for y in\n"
                   "                  range(x)]\n", "<s>", "exec").co_consts[0]
    table = getattr(code, "co_linetable", b"")
    if sys.version_info < (3, 11):
        pytest.skip("no location table before 3.11")
    want = [p[0] for p in positions_table(table, code.co_firstlineno, len(code.co_code))]
    assert location_lines(table, code.co_firstlineno, len(code.co_code)) == want
    assert want[0] is not None and len(set(want) - {None}) >= 3


def test_live_lines_match_the_table():
    # the decoder takes a live code object's lines from co_lines: what its table says,
    # lines with no location and nested code included
    from depyf.bytecode.decode import decode_ops
    from depyf.bytecode.linetable import live_lines
    if sys.version_info < (3, 10):
        pytest.skip("no co_lines before 3.10")
    source = ("def f(a, b):\n    x = (a +\n         b)\n    try:\n        return [y for y in\n"
              "                  range(x)]\n    finally:\n        print(\n            a)\n"
              "class C:\n    def g(self):\n        with open(1) as f:\n            pass\n")
    pending = [compile(source, "<s>", "exec")]
    while pending:
        code = pending.pop()
        pending += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        rec = from_live(code)
        fmt = get_table(rec.version).linetable_format
        want = line_table(rec.linetable, fmt, rec.firstlineno, len(rec.code))
        assert live_lines(code, len(rec.code) // 2) == want, code.co_name
        ops = decode_ops(code).instructions
        assert [op.line for op in ops] == [want[op.offset // 2] for op in ops]


def _random_location_entry(rnd) -> bytes:
    """One 3.11+ location entry of a random form, 1-8 units long."""
    def varint(value):
        out = bytearray()
        while value >= 64:
            out.append(0x40 | (value & 63))
            value >>= 6
        return bytes(out + bytes([value]))

    def svarint(value):
        return varint(((-value) << 1) | 1 if value < 0 else value << 1)
    length = rnd.randrange(8)
    code = rnd.choice([0, 5, 9, 10, 10, 11, 12, 13, 14, 15])
    first = bytes([0x80 | code << 3 | length])
    if code < 10:
        return first + bytes([rnd.randrange(128)])
    if code < 13:
        return first + bytes([rnd.randrange(256), rnd.randrange(256)])
    if code == 13:
        return first + svarint(rnd.randrange(-200, 200))
    if code == 14:
        return first + svarint(rnd.randrange(-200, 200)) + b"".join(
            varint(rnd.randrange(300)) for _ in range(3))
    return first


def test_location_lines_match_positions_on_random_tables():
    # lines written a run at a time (a line change, no location, the numbered
    # forms, a table longer or shorter than the code) are the positions' lines
    import random
    from depyf.bytecode.linetable import location_lines
    rnd = random.Random(7)
    for _ in range(2000):
        table = b"".join(_random_location_entry(rnd) for _ in range(rnd.randrange(12)))
        code_len = 2 * rnd.randrange(40)
        want = [p[0] for p in positions_table(table, 3, code_len)]
        assert location_lines(table, 3, code_len) == want, (table, code_len)


def test_location_lines_of_line_only_entries():
    # Dynamo's tables: line-only entries (code 13), their line change in one
    # byte and mostly 0, then one cut short; the lines are the positions' lines
    from depyf.bytecode.errors import TruncatedError
    from depyf.bytecode.linetable import location_lines
    numbered = 0xe8                     # code 13, 1 unit (+ units - 1)
    entries = [numbered + 5, 0, numbered, 0, numbered + 2, 2 << 1, numbered, 0,
               numbered + 7, (3 << 1) | 1, numbered + 1, 0, numbered, 63, numbered]
    table = bytes(entries)
    for code_len in (2, 12, 30, 2 * 22, 2 * 24):
        want = [p[0] for p in positions_table(table[:-1], 10, code_len)]
        assert location_lines(table[:-1], 10, code_len) == want, code_len
    with pytest.raises(TruncatedError, match="inside a number"):
        location_lines(table, 10, 2 * 25)


def test_location_lines_cut_short():
    # an entry cut off by the end of the table is an error only when its units
    # are needed; which error says what was cut
    from depyf.bytecode.errors import TruncatedError
    from depyf.bytecode.linetable import location_lines
    short, one_line, numbered = 0x80, 0xd8, 0xe8       # 1 unit each
    with pytest.raises(TruncatedError, match="inside an entry"):
        location_lines(bytes([short]), 1, 2)
    with pytest.raises(TruncatedError, match="inside an entry"):
        location_lines(bytes([short, 0, one_line, 0]), 1, 4)
    with pytest.raises(TruncatedError, match="inside a number"):
        location_lines(bytes([numbered]), 1, 2)
    assert location_lines(bytes([one_line, 0, 0, short]), 1, 2) == [2]
    assert location_lines(bytes([0xf8, one_line, 0, 0]), 1, 6) == [None, 2, None]


@pytest.mark.host_decompiles
def test_decompile_restores_gc_threshold():
    import gc
    import depyf
    saved = gc.get_threshold()
    try:
        gc.set_threshold(123, 4, 5)
        depyf.decompile(test_decompile_restores_gc_threshold)
        assert gc.get_threshold() == (123, 4, 5)
    finally:
        gc.set_threshold(*saved)


@pytest.mark.parametrize("version", ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"])
def test_skipped_passes_would_change_nothing(version):
    # normalize() skips a pass when none of the ops it needs was decoded
    # (NEEDS); running every pass must give the same ops, on every construct.
    import os
    from depyf.bytecode.decode import decode_ops
    from depyf.bytecode.normalize import NEEDS, PASS_FUNCTIONS, PASSES, normalize, to_ops
    from depyf.verify.corpus import min_version
    from depyf.verify.interpreters import find_interpreter
    from depyf.verify.roundtrip import TargetSession
    if find_interpreter(version) is None:
        pytest.skip("Python %s is not installed under pyenv" % version)
    cases = os.path.join(os.path.dirname(__file__), "cases")
    want = tuple(map(int, version.split(".")))

    def every_pass(code):
        bc = decode_ops(code)
        func = to_ops(bc)
        for name in PASSES[bc.table.version]:
            PASS_FUNCTIONS[name](func, bc.table)
        func.reindex()
        return func

    def shape(func):
        return [(o.name, repr(o.arg), o.index, o.target and o.target.index,
                 o.handler and (o.handler.target.index, o.handler.depth)) for o in func.ops]

    skipped = 0
    with TargetSession(version) as target:
        for name in sorted(os.listdir(cases)):
            with open(os.path.join(cases, name), encoding="utf-8") as f:
                source = f.read()
            if min_version(os.path.join(cases, name)) > want:
                continue
            for rec in target.compile_module(source, name).walk():
                names = {op.name for op in to_ops(decode_ops(rec)).ops}
                skipped += sum(1 for p in PASSES[want] if p in NEEDS and names.isdisjoint(NEEDS[p]))
                assert shape(normalize(rec)) == shape(every_pass(rec)), (name, rec.qualname)
    assert skipped       # the test saw skipping at work


def _assemble(version, *pairs):
    """Code bytes of ``version`` from (opname, arg) pairs, each with its caches."""
    table = get_table(version)
    out = []
    for name, arg in pairs:
        info = table.opcode_by_name[name]
        out += [info.op, arg] + [table.cache_op, 0] * info.cache
    return out


def test_314_argument_kinds():
    rec = record_with(_assemble((3, 14), ("NOP", 0), ("LOAD_COMMON_CONSTANT", 3),
                                ("LOAD_COMMON_CONSTANT", 0), ("LOAD_SPECIAL", 1),
                                ("IS_OP", 1), ("IS_OP", 0), ("CONTAINS_OP", 1),
                                ("LOAD_SMALL_INT", 7), ("END_ASYNC_FOR", 10),
                                ("RETURN_VALUE", 0)))
    rec.version = (3, 14)
    got = [(i.opname, i.argval, i.argrepr) for i in decode(rec)]
    assert got == [
        ("NOP", None, ""),
        ("LOAD_COMMON_CONSTANT", 3, "<built-in function all>"),     # 3.14 dis: argval the index
        ("LOAD_COMMON_CONSTANT", 0, "AssertionError"),
        ("LOAD_SPECIAL", 1, "__exit__"),
        ("IS_OP", 1, "is not"), ("IS_OP", 0, "is"), ("CONTAINS_OP", 1, "not in"),
        ("LOAD_SMALL_INT", 7, ""),
        ("END_ASYNC_FOR", 0, "from 0"),
        ("RETURN_VALUE", None, ""),
    ]
    bc = decode(rec)
    assert bc[-2].target is bc[0]
    bad = record_with(_assemble((3, 14), ("LOAD_SPECIAL", 4), ("RETURN_VALUE", 0)))
    bad.version = (3, 14)
    with pytest.raises(DecodeError, match="special method index 4 out of range"):
        decode(bad)


def test_315_argument_kinds():
    rec = record_with(_assemble((3, 15), ("LOAD_COMMON_CONSTANT", 7), ("LOAD_COMMON_CONSTANT", 0),
                                ("IMPORT_NAME", 1 << 2 | 1), ("IMPORT_NAME", 0 << 2 | 2),
                                ("IMPORT_NAME", 1 << 2), ("RETURN_VALUE", 0)))
    rec.version = (3, 15)
    rec.names = ("os", "json")
    got = [(i.opname, i.argval, i.argrepr) for i in decode(rec)]
    assert got == [
        ("LOAD_COMMON_CONSTANT", None, "None"),          # 3.15 dis: argval the value
        ("LOAD_COMMON_CONSTANT", AssertionError, "AssertionError"),
        ("IMPORT_NAME", "json", "json + lazy"), ("IMPORT_NAME", "os", "os + eager"),
        ("IMPORT_NAME", "json", "json"),
        ("RETURN_VALUE", None, ""),
    ]
    bad = record_with(_assemble((3, 15), ("LOAD_COMMON_CONSTANT", 12), ("RETURN_VALUE", 0)))
    bad.version = (3, 15)
    with pytest.raises(DecodeError, match="common constant index 12 out of range"):
        decode(bad)


def test_not_taken_is_silent_to_the_decompiler():
    from depyf.bytecode.decode import decode_ops
    rec = record_with(_assemble((3, 14), ("NOP", 0), ("NOT_TAKEN", 0), ("RETURN_VALUE", 0)))
    rec.version = (3, 14)
    assert [i.opname for i in decode(rec)] == ["NOP", "NOT_TAKEN", "RETURN_VALUE"]
    assert [op.name for op in decode_ops(rec)] == ["NOP", "RETURN_VALUE"]


@pytest.mark.parametrize("version", [(3, 14), (3, 15)])
def test_newest_versions_decompile(version):
    import depyf
    from depyf.bytecode.normalize import decompiled_versions, normalize
    assert version in decompiled_versions()
    rec = record_with(_assemble(version, ("NOP", 0), ("LOAD_SMALL_INT", 7), ("RETURN_VALUE", 0)))
    rec.version = version
    assert [(op.name, op.arg) for op in normalize(rec).ops] == [("LOAD_CONST", 7),
                                                                ("RETURN_VALUE", None)]


def test_a_version_without_passes_says_so():
    from depyf.bytecode import UnsupportedVersionError
    from depyf.bytecode.normalize import check_decompiled
    with pytest.raises(UnsupportedVersionError,
                       match=r"decompiling Python 3\.16 bytecode is not supported yet .*3\.8-3\.15"):
        check_decompiled((3, 16))
