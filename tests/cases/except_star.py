# min-version: 3.11
"""Exception groups: except* (PEP 654)."""


def except_star(f):
    try:
        f()
    except* ValueError:
        print("value errors")


def except_star_as(f):
    try:
        f()
    except* ValueError as group:
        print(group.exceptions)
    except* (TypeError, KeyError) as other:
        print(other)


def except_star_else_finally(f):
    try:
        f()
    except* OSError:
        print("os")
    else:
        print("no errors")
    finally:
        print("done")


def except_star_reraise(f):
    try:
        f()
    except* ValueError:
        raise


def except_star_raise_new(f):
    try:
        f()
    except* ValueError as eg:
        raise RuntimeError("wrapped") from eg


def raise_group():
    raise ExceptionGroup("several", [ValueError(1), TypeError(2)])


def except_star_in_loop(fs):
    for f in fs:
        try:
            f()
        except* ValueError:
            pass


def except_star_branches(f, flag):
    try:
        f()
    except* ValueError:
        if flag:
            print(1)
    except* TypeError as group:
        if group:
            print(2)
        else:
            print(3)
    print(4)


def except_star_after_return(f):
    try:
        return f()
    except* ValueError:
        pass
    print("only after an error")


def except_star_nested_in_finally(f, g):
    for x in f:
        try:
            f()
        except* TypeError as e:
            try:
                g(e)
            except* KeyError:
                g()
            finally:
                g()


def except_star_while_else(f, g):
    while f:
        try:
            f()
        except* ValueError:
            pass
        else:
            g()
