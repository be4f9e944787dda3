"""With statements: several items, nesting, async with, control flow inside."""


def simple_with(path):
    with open(path) as f:
        return f.read()


def with_no_target(lock):
    with lock:
        print("locked")


def with_two_items(a, b):
    with open(a) as fa, open(b) as fb:
        return fa.read() + fb.read()


def with_mixed_targets(lock, path):
    with lock, open(path) as f:
        print(f)


def nested_with(a, b):
    with open(a) as fa:
        with open(b) as fb:
            print(fa, fb)
        print("after inner")


def with_tuple_target(manager):
    with manager as (first, second):
        return first, second


def with_attribute_target(manager, obj):
    with manager as obj.attr:
        pass


def with_in_loop_break(managers):
    for manager in managers:
        with manager:
            if manager.done:
                break


def with_in_loop_continue(managers):
    for manager in managers:
        with manager as value:
            if not value:
                continue
            print(value)


def with_return_inside(manager):
    with manager:
        return 1


def with_try_inside(manager, f):
    with manager:
        try:
            f()
        except ValueError:
            pass


def try_around_with(manager):
    try:
        with manager as m:
            m.run()
    except OSError:
        return None
    return True


def with_then_code(manager):
    with manager:
        x = 1
    return x


def with_in_while(manager, n):
    while n:
        with manager:
            n -= 1


def with_ends_if_then_return(flag, lock, value):
    # 3.10 copies the closing return onto the with's normal way out
    if flag:
        with lock:
            value = value.get()
    return value


def with_ends_if_else(flag, lock, value):
    if flag:
        with lock:
            value.run()
    else:
        value.stop()
    return value


def nested_with_ends_if(flag, a, b):
    if flag:
        with a:
            with b:
                flag.run()
    return flag.result


def with_ends_if_own_return(flag, lock, value):
    if flag:
        with lock:
            value.run()
        return value
    return value


def with_ending_if_ends_if(cache, lock, value):
    # 3.10 copies the exit call and the return onto both ways out of the inner if
    if value is None:
        with lock:
            value = cache.get()
            if value is None:
                value = cache.make()
                try:
                    cache.put(value)
                except TypeError:
                    raise ValueError(value) from None
    return value


async def async_with(manager):
    async with manager as value:
        print(value)


async def async_with_two(a, b):
    async with a, b as y:
        return y


async def nested_async_with(a, b):
    async with a:
        async with b as y:
            await y


async def async_with_in_loop(managers):
    for manager in managers:
        async with manager:
            if manager:
                break


async def with_and_async_with(lock, manager):
    with lock:
        async with manager:
            pass


async def async_with_ends_if(flag, manager):
    if flag:
        async with manager:
            flag.run()
    return flag


def with_if_return_none_then_return(fp, flag):
    # the return None's exit call is not where the body falls off (3.11+ give
    # both exits the with's line)
    with fp:
        if flag:
            return None
        return fp.read()


def with_try_clause_returns_then_return(fp, data):
    # 3.12+ lay the code after the try before its handler; the with body is cut
    # before that code's SWAP 2; <exit call>; RETURN_VALUE
    with fp:
        try:
            co = data.load()
        except Exception as e:
            return None
        return co


def with_try_body_returns(opener, f, strict):
    with opener(f) as handle:
        if strict:
            try:
                return handle.read(strict=strict)
            except ValueError as e:
                raise RuntimeError(e) from None
        return handle.read()


def with_try_returns_clause_falls_off(opener, f, log):
    with opener(f) as handle:
        try:
            return handle.read()
        except ValueError:
            log()
    return False


def with_body_ending_if_else_returns(func, args, nowrap, convert):
    with func.context():
        ret = func(*args)
        if func in nowrap():
            return ret
        else:
            return convert(ret)


def with_body_ending_if_return(func, args, nowrap, convert):
    with func.context():
        ret = func(*args)
        if func in nowrap():
            return ret
        return convert(ret)


def with_loop_left_by_return_only(server, poll):
    with server.selector() as selector:
        while True:
            if poll(selector):
                return server.handle()


def load_with_optional_backend(extension, data, workdir):
    # A with statement after a try whose clause raises: the with's exit
    # handler, laid out after the try's, has a normal way on of its own (an
    # exception swallowed), which is no sign of the try's handlers inline.
    try:
        import json
    except ImportError as e:
        raise ModuleNotFoundError("json is needed") from e
    with workdir() as folder:
        return json.loads(folder.read(extension, data))
