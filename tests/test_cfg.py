"""The control-flow graph (depyf.decompiler.cfg): blocks, edges, dominators,
loops, handlers and the copies the compiler made, on code compiled by the host
and by each installed CPython 3.8-3.13; every code object of some stdlib
modules; the command line."""
import functools
import os
import py_compile
import subprocess
import sys
import textwrap

import pytest

from depyf.bytecode import from_live
from depyf.bytecode.ir import Handler, Op
from depyf.bytecode.normalize import normalize
from depyf.decompiler.cfg import (EXCEPTION, FALL, FALSE, JUMP, TRUE, build_cfg, exit_call_end,
                                  format_cfg, handler_kind, main)
from depyf.verify.interpreters import find_interpreter

VERSIONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]
HOST = "%d.%d" % sys.version_info[:2]
SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")

SOURCE = textwrap.dedent("""
    def if_else(a):
        if a:
            x()
        else:
            y()
        z()

    def while_loop(a):
        while a():
            if b():
                break
            if c():
                continue
            d()
        e()

    def for_else(xs):
        for x in xs:
            if x:
                break
        else:
            g()
        h()

    def nested(xs):
        for x in xs:
            while x:
                x = f(x)
        return 1

    def try_except_finally():
        try:
            x()
        except E as e:
            y()
        finally:
            z()
        w()

    def with_return(m):
        with m as q:
            if q:
                return q()
            q.close()
        after()

    def return_in_try(a):
        try:
            return a()
        finally:
            z()

    def return_in_finally(a):
        try:
            a()
        finally:
            if a:
                return 1
        w()

    def endless():
        while True:
            x()

    def nested_finally(a):
        try:
            try:
                return a()
            finally:
                b()
        finally:
            c()

    def with_in_finally(m):
        try:
            x()
        finally:
            with m:
                y()
        z()

    def try_in_loop(xs):
        for x in xs:
            try:
                if x:
                    continue
                g(x)
            except E:
                break
            finally:
                h()
        return 1

    async def async_with(m):
        async with m:
            await x()
        z()
""")


@functools.lru_cache(maxsize=None)
def compiled(version):
    """name -> CodeRecord of SOURCE's functions, compiled by ``version``."""
    if version == HOST:
        module = from_live(compile(SOURCE, "<cfg>", "exec"))
    else:
        if find_interpreter(version) is None:
            pytest.skip("Python %s is not installed under pyenv" % version)
        from depyf.verify.roundtrip import TargetSession
        with TargetSession(version) as target:
            module = target.compile_module(SOURCE, "<cfg>")
    return {rec.name: rec for rec in module.iter_code_consts()}


def graph(version, name):
    return build_cfg(normalize(compiled(version)[name]))


def blocks_calling(cfg, name):
    """The blocks that load the global ``name`` (the functions the snippets call)."""
    return [b for b in cfg.blocks
            if any(op.name == "LOAD_GLOBAL" and op.arg == name for op in b.ops)]


def the_block_calling(cfg, name):
    found = [b for b in blocks_calling(cfg, name) if b in cfg.reachable_normal]
    assert len(found) == 1, (name, found)
    return found[0]


def reached_from(block, banned=()):
    seen, work = {block}, [block]
    while work:
        for e in work.pop().successors:
            if e.kind != EXCEPTION and e.target not in seen and e.target not in banned:
                seen.add(e.target)
                work.append(e.target)
    return seen


def check_invariants(cfg, ops):
    """What holds of every graph: the blocks cut the ops in order, each under
    one handler; jumps end blocks and land on block starts; every two-way
    branch has a true and a false edge; the dominator trees are trees."""
    at = 0
    for b in cfg.blocks:
        assert b.start == at and b.ops == ops[b.start:b.end] and b.ops
        at = b.end
        assert all(op.handler is b.handler or op.handler.same_as(b.handler) for op in b.ops)
        for op in b.ops[:-1]:
            assert op.target is None and op.name not in ("JUMP", "RETURN_VALUE", "RERAISE",
                                                         "RAISE_VARARGS")
        for e in b.successors:
            assert e.source is b and e in e.target.predecessors
        kinds = sorted(e.kind for e in b.successors if e.kind != EXCEPTION)
        if b.last.name.startswith("POP_JUMP_IF") and b.index + 1 < len(cfg.blocks):
            assert kinds == [FALSE, TRUE]
        if b.handler is not None:
            [e] = [e for e in b.successors if e.kind == EXCEPTION]
            assert e.target.first is b.handler.target and e.depth == b.handler.depth
    assert at == len(ops)
    assert set(cfg.idom) == set(cfg.reachable) == set(cfg.ipdom)
    for b, d in cfg.idom.items():
        assert (d is None) == (b is cfg.entry)
        assert d is None or (cfg.dominates(d, b) and d is not b)
    for loop in cfg.loops:
        assert all(cfg.dominates(loop.header, b) for b in loop.body)
        assert loop.parent is None or set(loop.body) < set(loop.parent.body)


ALL = [HOST] + [v for v in VERSIONS if v != HOST]


@pytest.fixture(params=ALL)
def version(request):
    return request.param


# -- blocks and edges ------------------------------------------------------------------

def test_if_else_edges_and_join(version):
    cfg = graph(version, "if_else")
    then, orelse = the_block_calling(cfg, "x"), the_block_calling(cfg, "y")
    test = cfg.entry
    assert test.last.name == "POP_JUMP_IF_FALSE"
    assert test.edge(TRUE).target is then and test.edge(FALSE).target is orelse
    assert cfg.idom[then] is test and cfg.idom[orelse] is test
    joins = blocks_calling(cfg, "z")
    if len(joins) == 1:
        [join] = joins
        assert cfg.idom[join] is test and cfg.ipdom[test] is join
        assert cfg.postdominates(join, then) and not cfg.dominates(then, join)
    else:
        # 3.12+ copies the small tail into each branch: each reaches its own
        assert len(joins) == 2 and cfg.ipdom[test] is None
        assert {j for j in joins if j in reached_from(then)} != \
            {j for j in joins if j in reached_from(orelse)}
    assert cfg.loops == [] and cfg.handlers == [] and cfg.duplicates == []


def test_edges_of_hand_made_ops():
    # the None tests ask "is None": true when it is
    done = Op("RETURN_VALUE")
    ops = [Op("LOAD_FAST", "x"), Op("POP_JUMP_IF_NONE", target=done), Op("LOAD_CONST", 1),
           Op("POP_TOP"), done]
    cfg = build_cfg(ops)
    first = cfg.entry
    assert [(e.kind, e.target.first.name) for e in first.successors] == \
        [(TRUE, "RETURN_VALUE"), (FALSE, "LOAD_CONST")]
    assert cfg.blocks[1].edge(FALL).target is cfg.block_of(done)
    assert cfg.exits == [cfg.block_of(done)]


def test_unreachable_block_has_no_dominator():
    end = Op("LOAD_CONST", None)
    ops = [Op("JUMP", target=end), Op("LOAD_CONST", 1), Op("RETURN_VALUE"), end,
           Op("RETURN_VALUE")]
    cfg = build_cfg(ops)
    dead = cfg.block_of(ops[1])
    assert dead not in cfg.reachable and dead not in cfg.idom and dead not in cfg.ipdom
    assert cfg.entry.edge(JUMP).target is cfg.block_of(end)
    assert cfg.op_indices(cfg.reachable) == {0, 3, 4}


def _hand_made(text):
    from structure_ops import assemble
    ops = assemble(text)
    return ops, build_cfg(ops)


def test_region_post_dominators_drop_the_ways_out():
    # if a: (if b: return 1; f()) else: g()   then the join, op 11
    ops, cfg = _hand_made("""
               LOAD_FAST a
               POP_JUMP_IF_FALSE -> orelse
               LOAD_FAST b
               POP_JUMP_IF_FALSE -> call
               LOAD_CONST 1
               RETURN_VALUE
    call:      LOAD_GLOBAL f
               CALL (0, (), 2)
               POP_TOP
               JUMP -> join
    orelse:    NOP
    join:      LOAD_CONST None
               RETURN_VALUE
    """)
    assert [b.start for b in cfg.blocks_between(2, 11)] == [2, 4, 6, 10]
    assert cfg.blocks_between(3, 4) == []
    region = cfg.blocks_between(2, 11)
    test_b, ret, call, orelse = region
    join = cfg.block_of(ops[11])
    ipdom = cfg.region_ipdom(region, lambda b: join in b.normal_successors())
    # the return is left out: it never comes back to the join
    assert ret not in ipdom
    assert ipdom[test_b] is call and ipdom[call] is None and ipdom[orelse] is None
    # over the whole code the return post-dominates nothing of the branch...
    assert cfg.ipdom[test_b] is not call
    # ... and with no way on at all, nothing in the region has an entry
    assert cfg.region_ipdom(region, lambda b: False) == {}


def test_region_post_dominators_follow_a_handler_inside_the_region():
    # if a: (try: return f() except: pass) then the join: the return leaves,
    # the handler's way on comes back to the join
    ops, cfg = _hand_made("""
               LOAD_FAST a
               POP_JUMP_IF_FALSE -> join
    body:      LOAD_GLOBAL f !handler
               CALL (0, (), 2) !handler
               RETURN_VALUE
    handler:   PUSH_EXC_INFO
               POP_TOP
               POP_EXCEPT
               JUMP -> join
    join:      LOAD_CONST None
               RETURN_VALUE
    """)
    region = cfg.blocks_between(2, 9)
    body, handler = cfg.block_of(ops[2]), cfg.block_of(ops[5])
    assert body.edge(EXCEPTION).target is handler
    join = cfg.block_of(ops[9])
    ipdom = cfg.region_ipdom(region, lambda b: join in b.normal_successors())
    assert ipdom[body] is handler and ipdom[handler] is None
    # without the exception edge (the handler outside the region) the body
    # never runs on
    assert body not in cfg.region_ipdom([body], lambda b: join in b.normal_successors())


def test_block_of_refuses_an_op_of_other_code():
    cfg = build_cfg(lambda a: a)
    with pytest.raises(ValueError):
        cfg.block_of(Op("LOAD_FAST", "a"))


def test_takes_a_function_a_code_object_and_normalised_ops():
    def f(a):
        return 1 if a else 2
    shapes = {tuple(len(b.ops) for b in build_cfg(x).blocks)
              for x in (f, f.__code__, normalize(f), normalize(f).ops)}
    assert len(shapes) == 1
    assert build_cfg(f).entry.last.name == "POP_JUMP_IF_FALSE"


# -- loops -----------------------------------------------------------------------------

def test_while_with_break_and_continue(version):
    cfg = graph(version, "while_loop")
    outer = [loop for loop in cfg.loops if loop.parent is None]
    assert len(outer) == 1
    loop = outer[0]
    for name in ("b", "c", "d"):
        assert the_block_calling(cfg, name) in loop
    assert all(b not in loop for b in blocks_calling(cfg, "e"))
    # `break` leaves the loop for the code after it; every way out reaches e()
    assert loop.exits and all(e.kind in (TRUE, FALSE, JUMP, FALL) for e in loop.exits)
    calls_e = set(blocks_calling(cfg, "e"))
    assert all(calls_e & reached_from(e.target) for e in loop.exits)
    broken = the_block_calling(cfg, "b").edge(TRUE).target
    assert broken not in loop
    # the latches go back to the header
    for latch in loop.latches:
        assert any(e.target is loop.header for e in latch.successors)
    # 3.10+ tests the condition again at the bottom, and `continue` goes to the
    # top test: a loop inside the loop (both headers dominate what they hold)
    for inner in loop.children:
        assert inner.header in loop and inner.parent is loop


def test_for_else(version):
    cfg = graph(version, "for_else")
    [loop] = cfg.loops
    header = loop.header
    assert header.last.name == "FOR_ITER"
    orelse = header.edge(FALSE).target
    assert orelse in blocks_calling(cfg, "g") and orelse not in loop
    assert header.edge(TRUE).target in loop
    # `break` skips the else clause: it reaches h() without passing g()
    [breaking] = [e for e in loop.exits if e.source is not header]
    assert not any(b in blocks_calling(cfg, "g") for b in reached_from(breaking.target))
    assert any(b in blocks_calling(cfg, "h") for b in reached_from(breaking.target))


def test_nested_loops(version):
    cfg = graph(version, "nested")
    fors = [loop for loop in cfg.loops if loop.header.last.name == "FOR_ITER"]
    assert len(fors) == 1
    outer = fors[0]
    assert outer.parent is None and outer.depth == 1
    inner = the_block_calling(cfg, "f")
    innermost = cfg.loop_of(inner)
    assert innermost is not outer and innermost.depth >= 2
    chain = []
    loop = innermost
    while loop is not None:
        chain.append(loop)
        loop = loop.parent
    assert chain[-1] is outer and chain[-2] in outer.children
    assert set(innermost.body) < set(outer.body)
    assert cfg.dominates(outer.header, innermost.header)


def test_endless_loop_post_dominators(version):
    cfg = graph(version, "endless")
    [loop] = cfg.loops
    assert loop.exits == []
    assert cfg.exits == [] or all(b not in cfg.reachable_normal for b in cfg.exits)
    # every reached block still has a post-dominator (the loop is tied to the exit)
    assert set(cfg.ipdom) == set(cfg.reachable)


def test_a_cycle_with_two_ways_in_is_no_loop():
    # A -> B -> A, entered at both A and B: no block dominates the other
    b_top = Op("LOAD_FAST", "b")
    a_top = Op("LOAD_FAST", "a")
    out = Op("LOAD_CONST", None)
    ops = [Op("LOAD_FAST", "x"), Op("POP_JUMP_IF_TRUE", target=b_top),
           a_top, Op("POP_JUMP_IF_TRUE", target=out), Op("JUMP", target=b_top),
           b_top, Op("POP_JUMP_IF_TRUE", target=a_top), out, Op("RETURN_VALUE")]
    cfg = build_cfg(ops)
    assert cfg.loops == []
    assert cfg.idom[cfg.block_of(a_top)] is cfg.entry and cfg.idom[cfg.block_of(b_top)] is cfg.entry


def test_long_function_needs_no_recursion():
    source = "def f(a):\n" + "    if a:\n        a()\n" * 3000 + "    while a:\n        a()\n"
    code = compile(source, "<long>", "exec").co_consts[0]
    cfg = build_cfg(code)
    assert len(cfg.blocks) > 3000
    assert len(cfg.dominators(cfg.blocks[-1])) > 3000
    assert len(cfg.loops) == 1 and len(cfg.ipdom) == len(cfg.reachable)


# -- handlers and duplicates -------------------------------------------------------------

def test_try_except_finally_handlers(version):
    cfg = graph(version, "try_except_finally")
    body = the_block_calling(cfg, "x")
    chain = cfg.handler_chain(body)
    assert [r.kind for r in chain] == ["except", "cleanup", "finally", "cleanup"]
    clause, clause_cleanup, fin, fin_cleanup = chain
    assert body in clause.protected and clause.covers(body) and fin.covers(body)
    assert clause.cleanup is clause_cleanup and fin.cleanup is fin_cleanup
    assert clause.parent is clause_cleanup and clause_cleanup.parent is fin
    assert fin_cleanup.parent is None and fin in fin_cleanup.children
    # the exception edge carries the handler's stack depth and lasti
    [edge] = [e for e in body.successors if e.kind == EXCEPTION]
    assert edge.target is clause.entry and edge.depth == clause.depth and not edge.lasti
    assert clause.entry not in cfg.reachable_normal and clause.entry in cfg.reachable
    # the clause's code: its body (y()) but not what runs after the clause is left
    assert all(b in clause.code for b in blocks_calling(cfg, "y"))
    assert all(b not in clause.code for b in blocks_calling(cfg, "w"))
    # the finally body: the handler's copy and one copy on the normal way out
    [dup] = [d for d in cfg.duplicates if d.kind == "finally"]
    assert dup.region is fin
    assert any(b in dup.original for b in blocks_calling(cfg, "z"))
    assert all(b in fin.code for b in dup.original)
    [copy] = dup.copies
    [z_copy] = [b for b in blocks_calling(cfg, "z") if b in cfg.reachable_normal]
    assert z_copy in copy.blocks and cfg.copy_at(z_copy) is copy
    assert copy.original_block(z_copy) in blocks_calling(cfg, "z")
    assert all(not fin.covers(b) for b in copy.blocks)
    assert copy.exits and all(b not in copy.blocks for b in copy.exits)


def test_with_exit_copies(version):
    cfg = graph(version, "with_return")
    [region] = [r for r in cfg.handlers if r.kind == "with"]
    assert region.cleanup is not None and region.entry.first.name == "PUSH_EXC_INFO"
    [edge] = [e for e in region.protected[0].successors if e.kind == EXCEPTION]
    assert edge.lasti == region.lasti
    [dup] = cfg.duplicates
    assert dup.kind == "with-exit" and dup.region is region and dup.original == []
    # one __exit__ call after the body, one on the way out of `return q()`
    assert len(dup.copies) == 2
    for copy in dup.copies:
        ops = copy.ops
        assert exit_call_end(cfg.ops, ops[0].index) == ops[-1].index + 1
        assert all(not region.covers(b) for b in copy.blocks)
    returns = [c for c in dup.copies if c.ops[0].name == "SWAP"]
    assert len(returns) == 1
    assert any(b.last.name == "RETURN_VALUE" for b in returns[0].exits)


def test_return_in_try_runs_a_copy_of_finally(version):
    cfg = graph(version, "return_in_try")
    [dup] = cfg.duplicates
    assert dup.kind == "finally"
    assert len(dup.copies) == 1
    [copy] = dup.copies
    assert any(b in blocks_calling(cfg, "z") for b in copy.blocks)
    assert any(b.last.name == "RETURN_VALUE" for b in copy.exits + copy.blocks)


def test_return_in_finally(version):
    # (3.8 keeps its finally machinery when the body returns: no handler then)
    cfg = graph(version, "return_in_finally")
    if version == "3.8":
        assert cfg.handlers == [] and cfg.duplicates == []
        assert any(e.kind == EXCEPTION and e.handler is None for e in cfg.edges())
        return
    [dup] = cfg.duplicates
    [copy] = dup.copies
    # the handler's copy drops the exception before it returns; the normal one
    # has none to drop, and still counts as a copy
    assert any(op.name == "POP_EXCEPT" for b in dup.original for op in b.ops)
    assert not any(op.name == "POP_EXCEPT" for op in copy.ops)
    [returns] = [b for b in copy.blocks if b.last.name == "RETURN_VALUE"]
    assert returns.first.name == "LOAD_CONST" and returns.first.arg == 1
    assert copy.original_block(returns) in dup.original
    # the body's other way on goes to the code after the statement
    assert any(b in blocks_calling(cfg, "w") for e in copy.exits for b in reached_from(e))


def test_nested_finally_bodies_on_the_way_out_of_return(version):
    cfg = graph(version, "nested_finally")
    by_body = {}
    for d in cfg.duplicates:
        assert d.kind == "finally"
        [name] = {op.arg for op in d.original_ops if op.name == "LOAD_GLOBAL"}
        by_body[name] = d
    assert sorted(by_body) == ["b", "c"]
    inner, outer = by_body["b"], by_body["c"]
    assert outer.region in cfg.handler_chain(inner.region.entry)
    [b_copy], [c_copy] = inner.copies, outer.copies
    # `return a()` runs the inner body's copy, then the outer's, then returns
    assert c_copy.blocks[0] in b_copy.exits
    assert any(b.first.name == "RETURN_VALUE" for b in c_copy.exits)
    assert all(not inner.region.covers(b) and outer.region.covers(b) for b in b_copy.blocks)


def test_a_copy_holds_the_copies_of_what_it_holds(version):
    cfg = graph(version, "with_in_finally")
    [fin] = [d for d in cfg.duplicates if d.kind == "finally"]
    exits = [d for d in cfg.duplicates if d.kind == "with-exit"]
    # the with statement is compiled twice: in the handler and on the normal way out
    assert len(exits) == 2
    [copy] = fin.copies
    [inside] = [d for d in exits if set(d.copies[0].blocks) <= set(copy.blocks)]
    block = inside.copies[0].blocks[0]
    assert cfg.copies_at(block) == [copy, inside.copies[0]]
    assert cfg.copy_at(block) is inside.copies[0]
    assert cfg.copy_at(the_block_calling(cfg, "x")) is None


def test_async_with_exit_awaits(version):
    cfg = graph(version, "async_with")
    [dup] = cfg.duplicates
    [copy] = dup.copies
    names = [op.name for op in copy.ops]
    assert names[-4:] == ["GET_AWAITABLE", "LOAD_CONST", "YIELD_FROM", "POP_TOP"]
    assert dup.region.kind == "with"


def test_try_in_loop(version):
    cfg = graph(version, "try_in_loop")
    [loop] = cfg.loops
    clause = cfg.handler_of(the_block_calling(cfg, "g"))
    assert clause.kind == "except"
    # the clause breaks out: its code is no part of the body, which raises into it
    assert clause.entry not in loop
    assert clause.entry in {e.target for e in loop.exception_exits}
    # the finally body runs on each way out of the try body: continue, the end
    # of the body, and the clause's break
    [dup] = cfg.duplicates
    assert len(dup.copies) == 3
    inside = [c for c in dup.copies if c.blocks[0] in loop]
    assert len(inside) == 2
    [breaking] = [c for c in dup.copies if c not in inside]
    assert all(b not in cfg.reachable_normal for b in breaking.blocks)
    returns = [b for b in cfg.blocks if b.last.name == "RETURN_VALUE"]
    assert any(set(returns) & reached_from(e) for e in breaking.exits)


def test_handler_kinds_from_entry_ops():
    def shape(*names):
        return [Op(n, a) for n, a in names]
    assert handler_kind(shape(("COPY", 3), ("POP_EXCEPT", None), ("RERAISE", 1)), 0) == "cleanup"
    assert handler_kind(shape(("PUSH_EXC_INFO", None), ("POP_TOP", None)), 0) == "except"
    assert handler_kind(shape(("PUSH_EXC_INFO", None), ("LOAD_GLOBAL", "E"),
                              ("CHECK_EXC_MATCH", None)), 0) == "except"
    assert handler_kind(shape(("PUSH_EXC_INFO", None), ("WITH_EXCEPT_START", None)), 0) == "with"
    assert handler_kind(shape(("PUSH_EXC_INFO", None), ("LOAD_GLOBAL", "f"),
                              ("RERAISE", 0)), 0) == "finally"
    assert handler_kind(shape(("LOAD_CONST", None), ("STORE_FAST", "e"), ("DELETE_FAST", "e"),
                              ("RERAISE", 1)), 0) == "unbind"


def test_handler_change_starts_a_block():
    entry = Op("PUSH_EXC_INFO")
    h = Handler(entry, 0, False)
    same = Handler(entry, 0, False)      # another object, the same handler
    ops = [Op("LOAD_CONST", 1, handler=h), Op("POP_TOP", handler=same), Op("LOAD_CONST", None),
           Op("RETURN_VALUE"), entry, Op("RERAISE", 0)]
    cfg = build_cfg(ops)
    assert [(b.start, b.end) for b in cfg.blocks] == [(0, 2), (2, 4), (4, 6)]
    assert [r.protected for r in cfg.handlers] == [[cfg.blocks[0]]]


# -- every code object of some stdlib modules ----------------------------------------------

STDLIB_MODULES = 8


@pytest.mark.parametrize("version", VERSIONS)
def test_stdlib_code_objects(version):
    if find_interpreter(version) is None:
        pytest.skip("Python %s is not installed under pyenv" % version)
    from depyf.verify.corpus import corpus_modules
    from depyf.verify.roundtrip import TargetSession
    graphs = 0
    with TargetSession(version) as target:
        for path in corpus_modules(version, STDLIB_MODULES):
            with open(path, encoding="utf-8") as f:
                module = target.compile_module(f.read(), path)
            for rec in module.walk():
                func = normalize(rec)
                cfg = build_cfg(func)
                check_invariants(cfg, func.ops)
                for region in cfg.handlers:
                    assert region.entry.first is region.handler.target
                    region.code
                for d in cfg.duplicates:
                    for copy in d.copies:
                        assert copy in cfg.copies_at(copy.blocks[0])
                format_cfg(cfg)
                graphs += 1
    assert graphs > 100


# -- the command line ------------------------------------------------------------------

def run_cli(*args):
    env = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.run([sys.executable, "-m", "depyf.decompiler.cfg"] + list(args),
                          capture_output=True, text=True, env=env)


@pytest.fixture
def source_file(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text(SOURCE)
    return path


def test_cli_prints_one_function(source_file):
    done = run_cli("%s:for_else" % source_file)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("== for_else (line ")
    assert "loops:" in out and "FOR_ITER" in out and "idom" in out
    assert "== if_else" not in out


def test_cli_pyc_every_code_object(source_file, tmp_path):
    pyc = tmp_path / "mod.pyc"
    py_compile.compile(str(source_file), cfile=str(pyc), doraise=True)
    done = run_cli(str(pyc))
    assert done.returncode == 0, done.stderr
    assert "== <module>" in done.stdout and "== try_except_finally" in done.stdout
    assert "handlers:" in done.stdout and "duplicates:" in done.stdout


def test_cli_pyc_of_another_version(source_file, tmp_path):
    other = next((v for v in VERSIONS if v != HOST and find_interpreter(v)), None)
    if other is None:
        pytest.skip("no other Python is installed under pyenv")
    pyc = tmp_path / "mod.pyc"
    subprocess.run([find_interpreter(other), "-c",
                    "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], "
                    "doraise=True)", str(source_file), str(pyc)], check=True)
    done = run_cli("%s:with_return" % pyc)
    assert done.returncode == 0, done.stderr
    assert "Python %s" % other in done.stdout and "with exit" in done.stdout


def test_cli_errors(source_file, tmp_path, capsys):
    assert main([str(tmp_path / "missing.pyc")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["%s:no_such_function" % source_file]) == 2
    err = capsys.readouterr().err
    assert "no code object named 'no_such_function'" in err and "for_else" in err
    bad = tmp_path / "bad.pyc"
    bad.write_bytes(b"not a pyc file at all")
    assert main([str(bad)]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_entered_blocks_are_the_jump_and_handler_targets(version):
    # The fallback starts a node where a jump or a handler enters: on its own
    # ops (3.8-3.10's block set-ups kept), the graph's entered blocks are
    # exactly the entry, every op's target and every handler's way in.
    from depyf.decompiler.fallback import prepare_ops
    for rec in compiled(version).values():
        for ops in (prepare_ops(rec).ops, normalize(rec).ops):
            expected = {0} | {op.target.index for op in ops if op.target is not None} \
                | {op.handler.target.index for op in ops if op.handler is not None}
            cfg = build_cfg(ops)
            assert {b.start for b in cfg.entered_blocks()} == expected, rec.name


def test_unlinked_graph_is_freed_without_the_garbage_collector():
    # blocks and edges refer to each other (and the loop and handler trees,
    # the duplicates and the graph): unlinked, the graph goes when let go of,
    # leaving the collector nothing to find
    import gc

    def f(xs, g):
        for x in xs:
            try:
                with g(x):
                    g(x)
            finally:
                g(x)

    def garbage_left(unlink):
        cfg = build_cfg(f)
        cfg.loops, cfg.idom, cfg.ipdom, [r.code for r in cfg.handlers]
        assert cfg.duplicates
        gc.collect()
        if unlink:
            cfg.unlink()
        del cfg
        return gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        assert garbage_left(False) > 0
        assert garbage_left(True) == 0
    finally:
        if enabled:
            gc.enable()
