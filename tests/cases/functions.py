"""Function signatures, defaults, annotations, decorators, calls."""
import functools


def no_args():
    pass


def returns_none():
    return None


def positional(a, b, c):
    return a, b, c


def defaults(a, b=1, c="two", d=None):
    return a + b


def varargs(*args):
    return args


def varkw(**kwargs):
    return kwargs


def everything(a, b=2, *args, c, d=4, **kwargs):
    return a, b, args, c, d, kwargs


def keyword_only(*, key, other=None):
    return key, other


def positional_only(a, b, /, c, *, d):
    return a, b, c, d


def positional_only_defaults(a=1, b=2, /, c=3):
    return a, b, c


def annotated(a: int, b: "str" = "x", *args: float, c: bool = True, **kw: dict) -> list:
    return [a, b, args, c, kw]


def annotated_return() -> "Annotated":
    return None


def docstring_only():
    """Only a docstring."""


def docstring_and_body(x):
    """A docstring, then code."""
    return x * 2


@functools.lru_cache(maxsize=None)
def decorated(n):
    return n


def deco_factory(tag):
    def deco(fn):
        fn.tag = tag
        return fn
    return deco


@deco_factory("a")
@deco_factory("b")
def stacked():
    return 1


@functools.wraps(stacked)
def wrapped():
    return stacked()


def calls(f, a, b, args, kwargs):
    f()
    f(a)
    f(a, b)
    f(a, key=b)
    f(*args)
    f(**kwargs)
    f(a, *args, key=b, **kwargs)
    f(*args, *args)
    f(**kwargs, **kwargs)
    f(a, *args, b, key=1, **kwargs)
    return f(a)(b)


def method_calls(obj, x):
    obj.method()
    obj.method(x)
    obj.attr.method(x, y=x)
    return obj.method(*x)


def default_expressions(a=[], b={}, c=(1, 2), d=-1, e=1 + 2j, f=len):
    return a, b, c, d, e, f


def kwdefaults_and_annotations(a, *, b: int = 1, c: str = "c"):
    return a, b, c


def nested_functions(x):
    def inner(y):
        return y + 1

    def inner_default(y=x):
        return y

    return inner(x), inner_default()


def recursive(n):
    if n <= 1:
        return 1
    return n * recursive(n - 1)


def early_returns(x):
    if x:
        return 1
    return 2


def implicit_return(x):
    x.append(1)


def unused_args(a, b, c):
    return 0
