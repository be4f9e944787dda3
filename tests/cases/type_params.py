# min-version: 3.12
"""PEP 695: generic functions and classes, type aliases."""
from typing import Callable


type Number = int | float
type Pair[T] = tuple[T, T]
type Nested[K, V] = dict[K, list[V]]
type Recursive = list[Recursive] | int


def first[T](items: list[T]) -> T:
    return items[0]


def two_params[K, V](mapping: dict[K, V], key: K) -> V:
    return mapping[key]


def bounded[T: (int, str)](value: T) -> T:
    return value


def upper_bound[T: int](value: T) -> T:
    return value


def variadic[*Ts](*args: *Ts) -> tuple[*Ts]:
    return args


def param_spec[**P, R](f: Callable[P, R]) -> Callable[P, R]:
    return f


class Box[T]:
    def __init__(self, value: T):
        self.value = value

    def get(self) -> T:
        return self.value

    def map[U](self, f: Callable[[T], U]) -> "Box[U]":
        return Box(f(self.value))


class Mapping[K, V](dict[K, V]):
    pass


class WithBound[T: int, *Ts, **P]:
    attr: T


def outer():
    type Local = list[int]

    def inner[T](x: T) -> T:
        return x

    return Local, inner


class Container:
    type Alias = int

    def method[T](self, x: T) -> T:
        return x
