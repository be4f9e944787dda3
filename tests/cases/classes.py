"""Class statements: bases, keywords, decorators, bodies, nested classes."""
import abc


class Empty:
    pass


class WithDocstring:
    """A docstring only."""


class Simple:
    attribute = 1
    other = attribute + 1

    def method(self):
        return self.attribute


class Derived(Simple):
    def method(self):
        return super().method() + 1


class Multiple(Simple, Empty, metaclass=abc.ABCMeta):
    @abc.abstractmethod
    def required(self):
        ...


class Registered:
    def __init_subclass__(cls, tag=None, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.tag = tag


class WithKeywords(Registered, tag="kw"):
    pass


class Properties:
    def __init__(self, value):
        self._value = value

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, new):
        self._value = new

    @staticmethod
    def static(a, b):
        return a + b

    @classmethod
    def build(cls, *args):
        return cls(*args)


class Slots:
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a = a
        self.b = b


class OnlyAnnotated:
    name: str
    count: int


class Annotated:
    name: str
    count: int = 0
    items: "list[int]"

    def total(self) -> int:
        return self.count


def decorator(cls):
    cls.decorated = True
    return cls


@decorator
class Decorated:
    x = 1


@decorator
@decorator
class TwiceDecorated(Decorated):
    pass


class Outer:
    class Inner:
        class Innermost:
            value = 3

        def method(self):
            return Outer.Inner.Innermost.value

    def make(self):
        return self.Inner()


def class_in_function(base):
    class Local(base):
        def method(self):
            return base

    return Local


def class_with_closure(value):
    class Holder:
        held = value

        def get(self):
            return value

    return Holder


class WithDunder:
    def __repr__(self):
        return "WithDunder()"

    def __eq__(self, other):
        return isinstance(other, WithDunder)

    __hash__ = None

    def __private(self):
        return self.__secret

    def uses_private(self):
        return self.__private()


class ConditionalBody:
    if True:
        flag = 1
    else:
        flag = 2
    for _i in range(3):
        flag += _i
    del _i


class KeywordsOnly(metaclass=type):
    pass


class StarredBases(*(object,), **{}):
    pass


class PrivateAttributes:
    def __init__(self, root):
        self.__root = root
        self.__map = {}

    def lookup(self, key):
        return self.__map.get(key, self.__root)

    def forget(self):
        del self.__map


class ModuleRenamed(dict):
    __module__ = 'typing'

    def copy(self):
        return super().copy()


class QualnameRenamed:
    __qualname__ = 'Other'
    size = 1


class AnnotatedMethods:
    """3.14 gives each annotated method an ``__annotate__`` that closes over
    the class namespace (``__classdict__``): no name a ``nonlocal`` declares."""
    size: int = 0

    def __init__(self, flags: int) -> None:
        self.flags = flags

    def __enter__(self) -> None:
        pass
