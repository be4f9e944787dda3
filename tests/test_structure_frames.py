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


def test_a_branch_join_is_the_innermost_branch_ending_there():
    frames = FrameStack()
    with frames.push(BranchFrame(10, 30)):
        with frames.push(BranchFrame(10, 20)):
            assert frames.join_at(10) == 20
        assert frames.join_at(10) == 30
        assert frames.join_at(11) is None


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
