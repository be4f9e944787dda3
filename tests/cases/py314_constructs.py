# min-version: 3.14
"""What Python 3.14 added or compiles its own way: template strings (PEP 750),
deferred annotations (PEP 649), except without parentheses (PEP 758), and
the idioms 3.14's compiler writes differently (inlined all/any/tuple calls,
constant slices, with statements, a not folded into a jump)."""
import typing

version: str = "3.14"
pending: int
if typing.TYPE_CHECKING:
    debug: bool = False


class Point:
    x: int = 0
    y: int = 0
    label: "str"

    def moved(self, dx: int, dy: int = 0) -> "Point":
        return Point()


def greet(name, width):
    plain = t"hello"
    field = t"hello {name}!"
    spec = t"{name!r:>{width}} and {width:03d}"
    debug = t"{name=}"
    return plain, field, spec, debug


def handle(op):
    try:
        op()
    except ValueError, TypeError:
        return "bad value"
    except KeyError as e:
        return e


def checks(xs, words):
    every = all(x > 0 for x in xs)
    some = any(w.startswith("a") for w in words)
    kept = tuple(x * 2 for x in xs if x)
    return every, some, kept


def slicing(xs):
    return xs[1:], xs[:-1], xs[::2], xs[1:3]


def membership(x, ys):
    if not (x in ys):
        return 1
    if not x is None:
        return 2
    return x not in ys


def managed(paths, opener):
    found = []
    for p in paths:
        with opener(p) as f:
            if f is None:
                continue
            if f == 0:
                break
            found.append(f.read())
    return found


def waiting(poll):
    while True:
        state = poll()
        if state:
            raise TimeoutError(state)


type Pair[T] = tuple[T, T]
