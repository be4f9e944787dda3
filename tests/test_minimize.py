"""depyf.verify.minimize shrinks a failing program and keeps it failing."""
from depyf.verify.minimize import minimize


def test_shrinks_to_the_statement_at_fault():
    source = "a = 1\nfor i in b:\n    if i:\n        target(i)\n    c = 2\nd = 3\n"
    fails = lambda s: "target(" in s  # noqa: E731
    small = minimize(source, fails)
    assert fails(small)
    assert small == "target(i)\n"


def test_drops_optional_blocks_the_failure_does_not_need():
    source = "try:\n    x = 1\nexcept E:\n    y = 2\nelse:\n    z = 3\nfinally:\n    w = 4\n"
    # Fails while a try keeps an except handler.
    fails = lambda s: "try:" in s and "except" in s and compiles(s)  # noqa: E731
    small = minimize(source, fails)
    assert fails(small) and "else" not in small and "finally" not in small


def test_a_source_whose_rewrite_passes_comes_back_unchanged():
    # ast.unparse writes (a) as a: the failure needs the parentheses, so the
    # minimizer must not start from the rewrite.
    source = "x = (a)\n"
    assert minimize(source, lambda s: "(a)" in s) == source


def test_every_call_is_bounded():
    calls = []

    def fails(s):
        calls.append(s)
        return True
    minimize("\n".join("x%d = %d" % (i, i) for i in range(200)) + "\n", fails, max_tries=50)
    assert len(calls) <= 50


def compiles(source):
    try:
        compile(source, "<s>", "exec")
        return True
    except SyntaxError:
        return False
