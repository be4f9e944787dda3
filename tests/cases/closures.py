"""Scopes: global, nonlocal, cells, free variables, __class__ and super()."""
counter = 0


def uses_global():
    return counter + 1


def assigns_global():
    global counter
    counter += 1
    return counter


def declares_global_unassigned():
    global not_yet_defined
    not_yet_defined = 1


def make_counter():
    count = 0

    def increment():
        nonlocal count
        count += 1
        return count

    return increment


def closure_over_argument(x):
    def inner():
        return x

    return inner


def cell_argument_reassigned(x):
    x = x + 1

    def inner():
        return x

    return inner


def two_levels(a):
    def middle(b):
        def inner(c):
            return a + b + c

        return inner

    return middle


def shared_cell():
    value = []

    def add(item):
        value.append(item)

    def get():
        return value

    return add, get


def nonlocal_in_nested_levels():
    x = 0

    def outer():
        def inner():
            nonlocal x
            x = 5

        inner()
        return x

    return outer


def closure_in_loop():
    funcs = []
    for i in range(3):
        def f(i=i):
            return i
        funcs.append(f)
    return funcs


def late_binding_closure():
    funcs = []
    for i in range(3):
        funcs.append(lambda: i)
    return funcs


def delete_cell():
    x = 1

    def get():
        return x

    del x
    return get


class Base:
    def greet(self):
        return "base"


class Child(Base):
    def greet(self):
        return super().greet() + "child"

    def explicit_super(self):
        return super(Child, self).greet()

    def uses_class_cell(self):
        return __class__

    @classmethod
    def class_super(cls):
        return super().greet

    def nested_super(self):
        def inner():
            return __class__
        return inner


class ClassScope:
    x = 1
    y = [v for v in range(x)]

    def method(self):
        return ClassScope.x


def free_var_in_class(value):
    class Holder:
        attr = value

        def method(self):
            return value

    return Holder


def global_and_local_mix(a):
    global counter
    b = counter
    counter = a
    return b
