"""Lambdas: arguments, defaults, nesting, closures, immediately called."""
identity = lambda x: x
constant = lambda: 42
two_args = lambda a, b: a + b
with_defaults = lambda a, b=2, *args, c=3, **kw: (a, b, args, c, kw)
positional_only = lambda a, /, b: a - b
keyword_only = lambda *, key: key
nested = lambda x: lambda y: x + y
conditional = lambda x: "yes" if x else "no"
immediately_called = (lambda x: x * 2)(21)
pair = (lambda: 1, lambda: 2)


def sort_by_key(items):
    return sorted(items, key=lambda item: (item[1], -item[0]))


def closure_lambda(factor):
    return lambda x: x * factor


def lambda_in_default(f=lambda: None):
    return f()


def lambdas_in_loop(n):
    return [lambda i=i: i for i in range(n)]


def lambda_with_star_call(f, args):
    return lambda: f(*args)


def lambda_returning_tuple():
    return lambda a, b: (b, a)


def lambda_with_comprehension():
    return lambda xs: [x + 1 for x in xs if x]


def lambda_uses_global():
    return lambda: identity(constant())


def map_filter(items):
    return list(map(lambda x: x + 1, filter(lambda x: x % 2, items)))


def lambda_yield():
    return lambda: (yield)
