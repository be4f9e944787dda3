"""Expressions: f-strings, slices, unpacking, augmented and annotated
assignment, del, subscripts, operators, constants of every type."""
import math


def fstrings(name, value, width, items):
    a = f"plain {name}"
    b = f"{value!r} {value!s} {value!a}"
    c = f"{value:>10} {value:{width}} {value:{width}.{width}f}"
    d = f"{name!r:^{width}}"
    e = f"{'nested' + name} {items[0]} {len(items)}"
    g = f"{{literal braces}} {value}"
    h = f"{f'{name}'}"
    i = f"{value = }"
    return a, b, c, d, e, g, h, i


def string_concatenation(name):
    return "a" "b", "c" + name, "%s-%d" % (name, 1), "{}".format(name)


def slices(seq, i, j):
    return (seq[i], seq[i:], seq[:j], seq[i:j], seq[::2], seq[i:j:-1], seq[:],
            seq[-1], seq[1:-1], seq[i, j], seq[i:j, ::2], seq[...])


def slice_assignment(seq, values):
    seq[1:3] = values
    seq[::2] = values
    del seq[:1]
    seq[0] = seq[-1]


def starred_unpacking(items):
    first, *middle, last = items
    a, (b, c) = 1, (2, 3)
    [d, e] = items[:2]
    head, *tail = items
    return first, middle, last, a, b, c, d, e, head, tail


def starred_building(a, b, mapping):
    return [*a, *b], (*a, 1), {*a, *b}, {**mapping, "k": 1}, {"x": 1, **mapping}


def swap(a, b):
    a, b = b, a
    return a, b


def swap_items(a, i, j):
    # The second target is computed between the two stores: it reads as one
    # tuple assignment only if any expression may build a target there.
    a[i], a[i + 1] = a[i + 1], a[i]
    a[i, j], a[i, j + 1] = a[i, j + 1], a[i, j]
    a[i], a[-i] = a[-i], a[i]
    a[i:], a[:i] = a[:i], a[i:]
    a[i < j], a[i is j], a[i in a] = 1, 2, 3
    return a


def swap_items_in_loops(rows, n):
    for step in range(n):
        for i in range(1, n):
            rows[i, step], rows[i, step + 1] = rows[i, step + 1], rows[i, step]
    return rows


def rotate(a, b, c):
    a, b, c = c, a, b
    return a, b, c


def chained_assignment():
    x = y = z = 0
    return x, y, z


def augmented_assignment(x, obj, seq, key):
    x += 1
    x -= 2
    x *= 3
    x /= 4
    x //= 5
    x %= 6
    x **= 2
    x <<= 1
    x >>= 1
    x &= 0xFF
    x |= 0x10
    x ^= 0x01
    x @= x
    obj.attr += 1
    obj.attr.inner -= 1
    seq[key] *= 2
    seq[key:] += [1]
    return x


def annotated_assignments(obj):
    simple: int = 1
    only_annotation: str
    obj.attr: int = 2
    obj.other: float
    (parenthesized): int = 3
    return simple


def delete_statements(obj, seq, mapping):
    x = 1
    del x
    del obj.attr
    del seq[0], mapping["key"]
    del (seq[1:2])


def assert_statements(x):
    assert x
    assert isinstance(x, int), "must be int"


def subscripts(matrix, mapping, key):
    return matrix[0][1], mapping[key], mapping[key, 1], matrix[-1][-1]


def ternaries(a, b):
    return (a if b else None), (1 if a else 2 if b else 3)


def unary_operators(x):
    return -x, +x, ~x, not x, -(-x)


def binary_operators(a, b):
    return (a + b, a - b, a * b, a / b, a // b, a % b, a ** b, a << b, a >> b,
            a & b, a | b, a ^ b, a @ b)


def precedence(a, b, c):
    return (a + b) * c, a + b * c, -a ** b, (-a) ** b, a ** -b, (a, b)[0], not (a == b)


def comparison_operators(a, b):
    return a == b, a != b, a < b, a <= b, a > b, a >= b


def constants():
    return (0, 1, -1, 255, 2 ** 70, -2 ** 70, 1.5, -0.0, 0.0, 1e300, float("inf"),
            1j, -2.5j, 1 + 2j, "text", "", "quote's", "tab\t", b"bytes", b"\x00\xff",
            True, False, None, ..., (), (1,), (1, "a", (2.0, None)), frozenset())


def constant_folding():
    return 2 * 3, "ab" * 2, (1, 2) + (3,), 1 << 10, -(5), not True, 7 // 2, 2 ** -1


def membership_constants(x):
    return x in (1, 2, 3), x in {1, 2, 3}, x not in ["a", "b"], x in {1.0, 2}


def big_literals():
    return [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], {"a": 1, "b": 2, "c": 3}, {1, 2, 3}


def dict_and_set_displays(a, b):
    return {}, {a: b}, {a: b, b: a}, {a}, {a, b}, [], [a], (a,), ()


def attribute_chains(obj):
    return obj.a.b.c, obj.method().attr, obj[0].attr, math.pi


def call_results(f, g):
    return f(g(1))(2), f(*g())


def conditional_import_expression(flag):
    return __import__("os") if flag else None


def global_constants_usage():
    return __name__, __debug__


def string_methods(text):
    return text.strip().lower().split(","), ",".join([text, text])


def long_string_constant():
    return ("a very long string " * 3) + "that is folded into one constant maybe"


def int_boundaries():
    return 2 ** 31, -2 ** 31, 2 ** 63 - 1, 0x7FFFFFFF, 0o777, 0b1010, 1_000_000


def walrus_in_expression(values):
    return [(y := v) for v in values], y if values else None


# An and/or whose first operand is an or/and in brackets, over two lines:
# 3.10/3.11 thread the inner jump into the outer one only where their lines
# agree, so where the bracket opens matters.
def bracket_on_the_line_of_its_operand(frame):
    return isinstance(frame, tuple) or (
        (is_array(frame) or is_tensor(frame)) and frame.ndim == 3
    )


def bracket_on_the_line_before_its_operand(a, b, c):
    x = (
        a or b) and c
    return x
