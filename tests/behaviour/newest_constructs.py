# min-version: 3.15
"""What 3.14 and 3.15 compile their own way, run both ways: unpacking in
comprehensions (PEP 798; written back, not as a loop that keeps only the last
item), template strings (PEP 750), deferred annotations (PEP 649), with
statements inside loops, and inlined all/any/tuple calls."""


def flatten(rows):
    TRACE.append(("flatten", len(rows)))
    return [*row for row in rows]


def merged(dicts):
    return {**d for d in dicts}


def chained(groups):
    return sorted({*g for g in groups})


def template(name, width):
    t = t"{name!r:>{width}} and {width:03d}"
    return list(t.strings), [(i.value, i.expression, i.conversion, i.format_spec)
                             for i in t.interpolations]


class Annotated:
    a: int = 3
    b: "str"


def annotations():
    return sorted(Annotated.__annotations__)


class Manager:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        TRACE.append(("enter", self.name))
        return self

    def __exit__(self, *exc):
        TRACE.append(("exit", self.name, exc[0] is not None))
        return False


def managed(names):
    for n in names:
        with Manager(n) as m:
            if n == "skip":
                continue
            if n == "stop":
                break
            TRACE.append(("body", m.name))
    return len(TRACE)


def checks(xs):
    return all(x > 0 for x in xs), any(x > 5 for x in xs), tuple(x * 2 for x in xs)


CHECKS = [("flatten", ([[1, 2], [], [3]],)), ("merged", ([{"a": 1}, {"a": 2, "b": 3}],)),
          ("chained", ([[1, 2], [2, 3]],)), ("template", ("x", 5)), ("annotations", ()),
          ("managed", (["a", "skip", "b", "stop", "c"],)), ("checks", ([1, 2, 7],)),
          ("checks", ([],))]
