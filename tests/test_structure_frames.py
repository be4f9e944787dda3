"""The frame stack the structurer's constructs push for the code they walk."""
import pytest

from depyf.bytecode.ir import Handler, Op
from depyf.decompiler.structure.frames import (BranchFrame, ClauseFrame, FinallyBodyFrame,
                                               FinallyFrame, FrameStack, GuardFrame, LoopFrame,
                                               StarClauseFrame, WithFrame)


def _handler(target, depth=0):
    return Handler(target, depth, False)


def test_queries_read_the_innermost_frame_and_forget_it_when_popped():
    frames = FrameStack()
    outer = LoopFrame(header=0, exit=20)
    inner = LoopFrame(header=5, exit=12, break_target=15)
    with frames.push(outer):
        with frames.push(inner):
            assert frames.loop is inner and frames.loops == [outer, inner]
            assert frames.loop_jump(15) and frames.loop_jump(20) and not frames.loop_jump(7)
            assert frames.current_header(0) and frames.current_header(5)
        assert frames.loop is outer and not frames.loop_jump(15)
    assert frames.loop is None and frames.frames == []


def test_a_frame_popped_on_an_exception_leaves_the_stack_as_it_was():
    frames = FrameStack()
    with pytest.raises(ValueError):
        with frames.push(ClauseFrame(exit=9, loop_depth=0, end=8)):
            raise ValueError()
    assert frames.clause is None and frames.frames == []


def test_the_end_of_a_construct_leads_where_falling_off_it_goes():
    # a loop body's end to its head, a branch's to its join, an except
    # clause's to its way out: the innermost construct ending there decides
    frames = FrameStack()
    with frames.push(LoopFrame(header=2, exit=40, body_end=30)):
        with frames.push(ClauseFrame(exit=25, loop_depth=1, end=20)):
            with frames.push(BranchFrame(end=20, join=22)):
                assert frames.end_leads_to(20) == 22
            assert frames.end_leads_to(20) == 25
            assert frames.end_leads_to(30) == 2
            assert frames.end_leads_to(21) is None


def test_a_branch_join_is_the_innermost_branch_ending_there():
    frames = FrameStack()
    with frames.push(BranchFrame(10, 30)):
        with frames.push(BranchFrame(10, 20)):
            assert frames.join_at(10) == 20
        assert frames.join_at(10) == 30
        assert frames.join_at(11) is None


def test_where_a_branch_leads_in_the_end_follows_joins_and_stops():
    # a match statement's last case runs on to the statement's end: its frame
    # ends where it joins, which leads nowhere further
    frames = FrameStack()
    with frames.push(BranchFrame(10, 30)):
        with frames.push(BranchFrame(30, 40)):
            with frames.push(BranchFrame(40, 40)):
                assert frames.final_join(10) == 40
                assert frames.final_join(40) == 40
                assert frames.final_join(11) == 11


def test_a_handler_is_active_by_identity_or_by_target_and_depth():
    target = Op("PUSH_EXC_INFO")
    h = _handler(target, 1)
    frames = FrameStack()
    with frames.push(GuardFrame((h,), code=False)):
        assert frames.is_active(h) and frames.is_active(_handler(target, 1))
        assert not frames.is_active(_handler(target, 2))
        assert not frames.in_handler_code
    assert not frames.is_active(h)


def test_handler_code_copies_and_except_star_clauses_stop_plain_runs():
    frames = FrameStack()
    assert frames.plain_runs
    for frame in (GuardFrame(code=True), FinallyFrame(["POP_TOP"]), WithFrame(["CALL"]),
                  StarClauseFrame("e")):
        with frames.push(frame):
            assert not frames.plain_runs
        assert frames.plain_runs
    for frame in (GuardFrame(code=False), LoopFrame(0, 4), ClauseFrame(None, 0, 3),
                  FinallyBodyFrame(None), BranchFrame(2, 3)):
        with frames.push(frame):
            assert frames.plain_runs
    frames.resume[4] = 9
    assert not frames.plain_runs


def test_finally_and_with_bodies_share_one_view_innermost_last():
    frames = FrameStack()
    fin, with_ = FinallyFrame(["A"]), WithFrame(["B"])
    with frames.push(fin), frames.push(with_):
        assert frames.copies == [fin, with_] and frames.innermost_copy == ["B"]
    with frames.push(FinallyBodyFrame("cleanup")):
        assert frames.finally_cleanup == "cleanup"
    assert frames.finally_cleanup is None and frames.innermost_copy is None


# -- what constructs tell the walker of the code (structure/walker.py) --------------------

from structure_ops import walker  # noqa: E402

#: a body whose except clause leaves by a jump to code only the handler reaches
HANDLED = """
       1   PUSH_NULL !h/0
           LOAD_GLOBAL f !h/0
           CALL (0, (), 2) !h/0
           RETURN_VALUE !h/0
h:         PUSH_EXC_INFO !cleanup/1/1
       2   POP_TOP !cleanup/1/1
           POP_EXCEPT
           JUMP -> after
cleanup:   COPY 3
           POP_EXCEPT
           RERAISE 1
after: 3   LOAD_CONST None
           RETURN_VALUE
"""


def test_handler_code_is_not_normal_until_a_construct_says_so():
    w = walker(HANDLED, names=("f",))
    clause = 5      # the clause's POP_TOP
    assert clause in w.reachable and clause not in w.normal
    # (the code after the try, which the clause jumps to, is normal already)
    assert len(w.ops) - 2 in w.normal
    w.count_as_normal(clause)
    assert {5, 6, 7} <= w.normal and 4 not in w.normal


def test_normal_inside_a_statement_in_handler_code_comes_back_after():
    w = walker(HANDLED, names=("f",))
    before = w.normal
    with pytest.raises(ValueError):
        with w.normal_inside(5, 8) as saved:
            assert saved is before and 5 in w.normal
            raise ValueError()
    assert w.normal is before


def test_expressions_built_as_a_comprehension_only_inside():
    w = walker(HANDLED, names=("f",))
    kind = w.ctx.kind
    with w.expressions_as("comprehension"):
        assert w.ctx.kind == "comprehension"
    assert w.ctx.kind == kind
