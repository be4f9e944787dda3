"""The committed per-version bytecode tables: consistent, and what the generator makes.

Regeneration needs each version's interpreter (pyenv's, or the Debian build of
scripts/debian_python.sh); without one that check is skipped, the consistency
checks still run.
"""
import importlib.util
import os

import pytest

from depyf.bytecode.versions import ARG_KINDS, SUPPORTED, get_table, version_from_magic

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "src", "depyf", "bytecode", "versions", "data")
IDS = ["%d.%d" % v for v in SUPPORTED]


def load_generator():
    # tools/ is not a package; load the script as a module.
    path = os.path.join(ROOT, "tools", "gen_opcode_tables.py")
    spec = importlib.util.spec_from_file_location("gen_opcode_tables", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gen():
    return load_generator()


@pytest.mark.parametrize("version", SUPPORTED, ids=IDS)
def test_table_is_consistent(version):
    table = get_table(version)
    assert table.version == version
    ops = [entry["op"] for entry in table.data["opcodes"]]
    assert len(ops) == len(set(ops)), "duplicate opcode numbers"
    assert all(0 <= op < 256 for op in ops)
    names = [entry["name"] for entry in table.data["opcodes"]]
    assert len(names) == len(set(names)), "duplicate opcode names"
    for info in table.opcode_by_name.values():
        assert info.kind in ARG_KINDS
        assert (info.kind == "none") == (not info.has_arg), info
    assert table.opcode_by_name["LOAD_CONST"].kind == "const"
    assert table.opcode_by_name["EXTENDED_ARG"].has_arg
    lo, hi = table.magic_range
    assert lo <= table.magic <= hi
    assert table.jump_unit == (1 if version <= (3, 9) else 2)


@pytest.mark.parametrize("version", SUPPORTED, ids=IDS)
def test_inline_caches(version):
    table = get_table(version)
    if version < (3, 11):
        assert table.cache_op is None
        assert all(info.cache == 0 for info in table.opcode_by_name.values())
    else:
        assert table.cache_op == 0
        assert table.opcode_by_name["CACHE"].cache == 0
        assert table.opcode_by_name["LOAD_GLOBAL"].cache > 0
        assert table.opcode_by_name["LOAD_GLOBAL"].kind == "global"
        assert table.localsplus_kinds["local"] == 0x20


def test_version_specific_kinds():
    assert get_table((3, 8)).opcode_by_name["JUMP_ABSOLUTE"].kind == "jump_abs"
    assert get_table((3, 11)).opcode_by_name["POP_JUMP_BACKWARD_IF_TRUE"].kind == "jump_back"
    t312 = get_table((3, 12))
    assert t312.opcode_by_name["JUMP_BACKWARD"].kind == "jump_back"
    assert t312.opcode_by_name["FOR_ITER"].kind == "jump_fwd"
    assert t312.opcode_by_name["LOAD_ATTR"].kind == "attr"
    assert t312.opcode_by_name["LOAD_SUPER_ATTR"].kind == "super_attr"
    assert (t312.compare_shift, t312.compare_bool_bit) == (4, 0)
    t313 = get_table((3, 13))
    assert t313.opcode_by_name["MAKE_FUNCTION"].kind == "none"
    assert t313.opcode_by_name["SET_FUNCTION_ATTRIBUTE"].kind == "make_function"
    assert t313.opcode_by_name["LOAD_FAST_LOAD_FAST"].kind == "local_pair"
    assert (t313.compare_shift, t313.compare_bool_bit, t313.null_repr) == (5, 16, "suffix")


def test_314_changes():
    t = get_table((3, 14))
    ops = t.opcode_by_name
    for gone in ("BINARY_SUBSCR", "RETURN_CONST", "BEFORE_WITH", "BEFORE_ASYNC_WITH",
                 "BUILD_CONST_KEY_MAP", "LOAD_ASSERTION_ERROR"):
        assert gone not in ops, gone
    kinds = {"LOAD_SMALL_INT": "int", "LOAD_FAST_BORROW": "local",
             "LOAD_FAST_BORROW_LOAD_FAST_BORROW": "local_pair",
             "LOAD_COMMON_CONSTANT": "common_constant", "LOAD_SPECIAL": "special_method",
             "IS_OP": "is_op", "CONTAINS_OP": "contains_op", "IMPORT_NAME": "name",
             "END_ASYNC_FOR": "jump_back", "POP_ITER": "none", "NOT_TAKEN": "none",
             "BUILD_TEMPLATE": "none", "BUILD_INTERPOLATION": "int"}
    assert {name: ops[name].kind for name in kinds} == kinds
    # (the pseudo ops, JUMP_IF_TRUE, ANNOTATIONS_PLACEHOLDER..., never reach co_code)
    assert "JUMP_IF_TRUE" not in ops and "ANNOTATIONS_PLACEHOLDER" not in ops
    assert ops["NOT_TAKEN"].op in t.silent_ops
    assert (t.magic, t.magic_range, t.marshal_version) == (3627, (3600, 3627), 5)
    assert t.common_constants[:2] == [AssertionError, NotImplementedError]
    assert t.common_constant_argval == "index"
    assert t.special_method_names == ["__enter__", "__exit__", "__aenter__", "__aexit__"]
    assert t.make_function_flags[-1] == "annotate"
    assert t.exit_looked_up_first and t.aexit_looked_up_first and t.special_lookup_names_missing
    assert (t.compare_shift, t.compare_bool_bit, t.null_repr) == (5, 16, "suffix")
    assert t.code_fields == get_table((3, 13)).code_fields


def test_315_changes():
    t = get_table((3, 15))
    ops = t.opcode_by_name
    assert "TRACE_RECORD" in ops and "GET_YIELD_FROM_ITER" not in ops
    assert ops["IMPORT_NAME"].kind == "import_name"
    assert ops["RESUME"].cache == 1 and ops["GET_ITER"].cache == 1
    assert (t.magic, t.magic_range, t.marshal_version) == (3666, (3650, 3666), 6)
    assert t.common_constant_argval == "object"
    assert t.common_constants[5:] == [list, set, None, "", True, False, -1]
    assert ops["NOT_TAKEN"].op in t.silent_ops


def test_older_tables_keep_their_facts():
    # the facts 3.14 added read "no" before it
    for version in SUPPORTED[:6]:
        t = get_table(version)
        assert not t.exit_looked_up_first and not t.special_lookup_names_missing
        assert t.marshal_version == 4 and t.common_constants == []
        assert t.aexit_looked_up_first == (version == (3, 8))
    assert get_table((3, 13)).opcode_by_name["IS_OP"].kind == "int"


def test_missing_builtin_stands_in():
    from depyf.bytecode.versions import VersionTable
    data = dict(get_table((3, 14)).data, common_constants=[{"builtin": "no_such_builtin"}])
    table = VersionTable(data)
    assert repr(table.common_constants[0]) == "no_such_builtin"


def test_binary_ops_are_name_symbol_pairs():
    assert get_table((3, 11)).binary_ops[0] == ("NB_ADD", "+")


@pytest.mark.parametrize("version", SUPPORTED, ids=IDS)
def test_magic_maps_back(version):
    assert version_from_magic(get_table(version).magic) == version


@pytest.mark.parametrize("version", SUPPORTED, ids=IDS)
def test_regenerated_table_is_identical(version, gen, tmp_path):
    python = gen.find_interpreter(version)
    if python is None:
        reason = "no Python %d.%d interpreter found (pyenv or scripts/debian_python.sh)" % version
        print(reason)
        pytest.skip(reason)
    path, _table = gen.generate(version, python, str(tmp_path))
    committed = os.path.join(DATA, os.path.basename(path))
    with open(path, "rb") as fresh, open(committed, "rb") as kept:
        assert fresh.read() == kept.read(), "run tools/gen_opcode_tables.py %d.%d" % version
