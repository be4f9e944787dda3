"""Boolean values: not, not not, and/or as values and as conditions, chained
comparisons, conditional expressions (issue 19: 3.13's ``not not b`` came out
as ``b``), on operands whose comparisons return other things than bools and
whose truth test is logged or raises."""


class V:
    """A value whose comparisons return V and whose truth is logged (and raises for None)."""

    def __init__(self, x):
        self.x = x

    def __repr__(self):
        return "V(%r)" % (self.x,)

    def __bool__(self):
        TRACE.append(("bool", self.x))
        if self.x is None:
            raise ValueError("no truth")
        return bool(self.x)

    def __lt__(self, other):
        TRACE.append(("lt", self.x))
        return V(self.x < getattr(other, "x", other))

    def __eq__(self, other):
        TRACE.append(("eq", self.x))
        return V(self.x == getattr(other, "x", other))

    __hash__ = None


def pair(a, b):
    return not a, not not b


def stored(y):
    x = not not y
    return x


def in_condition(a):
    if not not a:
        return 1
    return 2


def negated_and(a, b):
    return not (not a and b)


def negated_or(a, b):
    x = not (not a or b)
    return x


def in_displays(a, b, c):
    return [not not a, not (a and not b), not not (a or b), not a or not b, c if not not a else b]


def while_not_not(a, log):
    while not not a:
        a -= 1
        log.append(a)
    return log


def with_operators(a, b):
    return (not not a) == b, not not a is b, (not not a) + 1


def triple(a):
    return not not not a


def negated_condition(a, b):
    if not (not a and b):
        return "x"
    return "y"


def comparisons(a, b):
    return not (a < b), not not (a < b), not a < b, not not a == b


def in_and_or(a, b):
    y = a and not not b
    z = a or not not b
    return y, z


def chained(a, b, c):
    x = a < b < c
    y = not a < b < c
    z = not not (a < b < c)
    if a < b < c:
        return x, y, z, 1
    return x, y, z, 0


def conditional_values(a, b, c):
    x = a if b else c
    y = (a if b else c) or b
    z = not (a if b else c)
    w = b and (a if c else b)
    return x, y, z, w


def boolean_values(a, b, c):
    return a and b or c, a or b and c, (a or b) and c, not (a or b or c), a and not b


def truth_counted(a, b):
    # how often each operand's truth is asked must not change
    r = a and b
    if a and b:
        r = (r, 1)
    return r, not (a and b), bool(a or b)


OPERANDS = [(0, 0), (1, 0), (0, 2), (3, 4), ("", []), ([1], "x")]
OBJECTS = [(V(1), V(2)), (V(0), V(3)), (V(2), V(1)), (V(None), V(1)), (V(1), V(None))]
CHECKS = [(name, args) for name in
          ("pair", "negated_and", "negated_or", "with_operators", "negated_condition",
           "comparisons", "in_and_or", "truth_counted")
          for args in OPERANDS + OBJECTS]
CHECKS += [(name, (v,)) for name in ("stored", "in_condition", "triple")
           for v in (0, 1, "", "a", None, [0], V(0), V(1), V(None))]
CHECKS += [("in_displays", args + (c,)) for args in OPERANDS + OBJECTS for c in (0, 5)]
CHECKS += [(name, (a, b, c)) for name in ("chained", "conditional_values", "boolean_values")
           for a, b, c in [(1, 2, 3), (3, 2, 1), (0, 0, 0), (1, 0, 2), ("", "a", "b"),
                           (V(1), V(2), V(3)), (V(None), 1, 2), (V(0), V(None), V(1))]]
CHECKS += [("while_not_not", (3, [])), ("while_not_not", (0, []))]
