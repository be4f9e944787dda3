"""Comprehensions: list, set, dict, generator expressions, nested, async."""


def list_comp(xs):
    return [x * 2 for x in xs]


def set_comp(xs):
    return {x % 3 for x in xs}


def dict_comp(xs):
    return {x: x * x for x in xs}


def gen_exp(xs):
    return sum(x for x in xs)


def with_condition(xs):
    return [x for x in xs if x > 0]


def with_two_conditions(xs):
    return [x for x in xs if x > 0 if x % 2]


def with_bool_condition(xs):
    return [x for x in xs if x and not x % 3 or x == 7]


def two_loops(xs, ys):
    return [(x, y) for x in xs for y in ys]


def two_loops_conditions(xs, ys):
    return [(x, y) for x in xs if x for y in ys if y != x]


def nested_comprehension(matrix):
    return [[cell * 2 for cell in row] for row in matrix]


def comprehension_in_condition(rows):
    return [row for row in rows if any(cell for cell in row)]


def unpacking_target(pairs):
    return {k: v for k, v in pairs}


def star_unpacking_target(rows):
    return [rest for first, *rest in rows]


def conditional_expression_element(xs):
    return [x if x > 0 else -x for x in xs]


def closure_in_comprehension(xs, offset):
    return [x + offset for x in xs]


def comprehension_over_call(n):
    return [i for i in range(n)]


def genexp_to_function(xs):
    return max((x for x in xs if x), default=None)


def genexp_as_only_argument(xs):
    return tuple(x for x in xs)


def set_of_tuples(xs):
    return {(x, -x) for x in xs}


def dict_with_tuple_keys(xs):
    return {(x, x): [x] for x in xs}


def attribute_target(obj, xs):
    return [obj.attr for obj.attr in xs]


def comprehension_shadowing(x):
    y = [x for x in range(x)]
    return x, y


def lambda_in_comprehension(xs):
    return [lambda: x for x in xs]


class ComprehensionInClass:
    values = [1, 2, 3]
    doubled = [v * 2 for v in values]


async def async_comprehension(aiterable):
    return [x async for x in aiterable]


async def async_comprehension_with_condition(aiterable):
    return {x: 1 async for x in aiterable if x}


async def await_in_comprehension(coros):
    return [await c for c in coros]


async def async_genexp(aiterable):
    return (x async for x in aiterable)


async def mixed_async_sync(aiterable, ys):
    return [(x, y) async for x in aiterable for y in ys]


def compiler_names(os):
    # The iterable runs first but is written last: the statement starts on
    # the line of its first op only by chance (its GET_ITER's line, 3.12+).
    names = [
        os.path.basename(binary)
        for envvar in ('CC', 'CXX', 'LDSHARED')
        if (binary := os.environ.get(envvar, None))
    ]
    return names



# An element that builds its own display by unpacking appends to that
# display (LIST_APPEND 1, SET_ADD 1), not to the comprehension's result.
def starred_call_in_element(rows, extra):
    return [combine(*row, extra) for row in rows]


def starred_list_in_element(rows, extra):
    return [[*row, extra] for row in rows]


def starred_set_in_element(rows, extra):
    return {frozenset({*row, extra}) for row in rows}


def starred_call_in_dict_value(rows, extra):
    return {key: combine(*row, extra) for key, row in rows}


def starred_call_in_generator(rows, extra):
    return list(combine(*row, extra) for row in rows)


def starred_call_in_nested_loops(table, extra):
    return [combine(*cell, extra) for row in table for cell in row if cell]


# An empty target binds nothing (UNPACK_SEQUENCE 0): it is complete at once.
def empty_target(rows, extra):
    return [extra for [] in rows]
