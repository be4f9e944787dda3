# min-version: 3.10
"""Structural pattern matching: every pattern kind, guards, fall-through."""
import enum


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


def literal_patterns(value):
    match value:
        case 0:
            return "zero"
        case 1.5:
            return "float"
        case -2:
            return "negative"
        case 1 + 2j:
            return "complex"
        case "text":
            return "string"
        case b"bytes":
            return "bytes"
        case None:
            return "none"
        case True:
            return "true"
    return "other"


def capture_and_wildcard(value):
    match value:
        case 0:
            return 0
        case other:
            return other


def wildcard_only(value):
    match value:
        case _:
            return "anything"


def value_patterns(color):
    match color:
        case Color.RED:
            return "red"
        case Color.GREEN:
            return "green"


def sequence_patterns(value):
    match value:
        case []:
            return "empty"
        case [x]:
            return x
        case [x, y]:
            return x + y
        case (x, y, z):
            return x + y + z
        case [1, [2, inner]]:
            return inner


def star_patterns(value):
    match value:
        case [first, *rest]:
            return first, rest
        case [*init, last]:
            return init, last
        case [a, *_, b]:
            return a, b
        case [*_]:
            return "sequence"


def mapping_patterns(value):
    match value:
        case {}:
            return "any mapping"
        case {"type": "point", "x": x, "y": y}:
            return x, y
        case {"type": kind, **rest}:
            return kind, rest
        case {Color.RED: red}:
            return red


def class_patterns(value):
    match value:
        case Point(x=0, y=0):
            return "origin"
        case Point(0, y):
            return y
        case Point(x, y=5):
            return x
        case int(n):
            return n
        case str() | bytes():
            return "text"
        case dict(a=1):
            return "dict"


def or_patterns(value):
    match value:
        case 1 | 2 | 3:
            return "small"
        case [1, _] | [_, 1]:
            return "has one"
        case (0 | 1) as bit:
            return bit


def as_patterns(value):
    match value:
        case [x, y] as pair:
            return pair
        case Point(x=0) as p:
            return p
        case {"k": (1 | 2) as v}:
            return v


def guards(value):
    match value:
        case [x, y] if x > y:
            return "descending"
        case [x, y] if x == y:
            return "equal"
        case int(n) if n % 2 and n > 10:
            return "big odd"
        case _ if value:
            return "truthy"
    return None


def match_with_code_after(command):
    result = None
    match command.split():
        case ["go", direction]:
            result = direction
        case ["quit"]:
            result = "bye"
    print(result)
    return result


def match_in_loop(commands):
    for command in commands:
        match command:
            case "stop":
                break
            case "skip":
                continue
            case _:
                print(command)


def nested_match(value):
    match value:
        case [inner]:
            match inner:
                case 0:
                    return "zero"
                case _:
                    return "nonzero"


def match_subject_expression(a, b):
    match a, b:
        case (0, 0):
            return "both zero"
        case (x, 0):
            return x
        case _:
            return None


def or_with_captures(value):
    match value:
        case [1, x] | [x, 1]:
            return x
        case Point(x=a, y=b) | {"x": a, "y": b}:
            return a, b
        case (a, b) | [b, a, _]:
            return a, b


def nested_patterns(value):
    match value:
        case {"points": [Point(x=0, y=y1), *others]} if others:
            return y1, others
        case [[1, 2], (3, *rest)]:
            return rest
        case Point(x=[a, b], y={"k": c}):
            return a, b, c


def star_in_the_middle(value):
    match value:
        case [a, b, *middle, c]:
            return middle
        case [_, _, *_, _, last]:
            return last
        case [*_, 0]:
            return 0


def singletons(value):
    match value:
        case None:
            return 0
        case False:
            return 1
        case True:
            return 2


def mapping_keys_and_rest(value):
    match value:
        case {Color.RED: 1, "a": a, 2: _, **kw}:
            return a, kw
        case {"b": [_, *_] as b}:
            return b
        case {**kw}:
            return kw


def class_keyword_patterns(value):
    match value:
        case Point(x=0 | 1 as x, y=_):
            return x
        case Color(value=v):
            return v
        case Point(x, y) if x == y:
            return x


def guard_on_kept_subject(value):
    match value:
        case x if x > 10:
            return "big"
        case [*_] if len(value) > 2:
            return "long"
        case _:
            return "other"


def default_then_code(value):
    match value:
        case 1:
            r = "one"
        case _:
            r = "other"
    return r


def match_in_if(value, flag):
    if flag:
        match value:
            case 1:
                x = 1
            case 2:
                x = 2
    else:
        x = 0
    return x


def match_in_while(items):
    while items:
        match items.pop():
            case 0:
                break
            case 1:
                continue
            case n:
                print(n)


def match_then_raise(value):
    match value:
        case int():
            pass
        case _:
            raise TypeError(value)
    return value


def match_attribute_subject(obj):
    match obj.kind:
        case "a" | "b":
            obj.n += 1
        case "c":
            pass


async def match_await(value):
    match value:
        case [x]:
            await x


match __name__:
    case "__main__":
        MAIN = True
    case _:
        MAIN = False


# The last case runs on to the end of the statement: its body's own if,
# which has no else, must not chase that end forever.
def last_case_ends_in_an_if(mode, human, agent):
    match mode:
        case Color.RED:
            print(human)
        case Color.GREEN:
            if agent:
                print(agent)


def every_case_ends_in_an_if(mode, human, agent):
    match mode:
        case Color.RED:
            if human is not None:
                print(human)
        case Color.GREEN:
            if agent is not None:
                print(agent)
