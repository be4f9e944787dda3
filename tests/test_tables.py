"""The committed per-version bytecode tables: consistent, and what the generator makes.

Regeneration needs each version's interpreter (pyenv or nothing); without one
that check is skipped, the consistency checks still run.
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


def test_binary_ops_are_name_symbol_pairs():
    assert get_table((3, 11)).binary_ops[0] == ("NB_ADD", "+")


@pytest.mark.parametrize("version", SUPPORTED, ids=IDS)
def test_magic_maps_back(version):
    assert version_from_magic(get_table(version).magic) == version


@pytest.mark.parametrize("version", SUPPORTED, ids=IDS)
def test_regenerated_table_is_identical(version, gen, tmp_path):
    python = gen.find_interpreter(version)
    if python is None:
        pytest.skip("no Python %d.%d interpreter found via pyenv" % version)
    path, _table = gen.generate(version, python, str(tmp_path))
    committed = os.path.join(DATA, os.path.basename(path))
    with open(path, "rb") as fresh, open(committed, "rb") as kept:
        assert fresh.read() == kept.read(), "run tools/gen_opcode_tables.py %d.%d" % version
