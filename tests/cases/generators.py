"""Generators and coroutines: yield, yield from, await, async for/with."""
import asyncio


def simple_generator():
    yield 1
    yield 2


def generator_with_return(n):
    for i in range(n):
        yield i
    return n


def yield_expression():
    received = yield
    while received is not None:
        received = yield received * 2


def yield_tuple():
    yield 1, 2


def yield_from(iterable):
    yield from iterable


def yield_from_result(gen):
    result = yield from gen
    return result


def yield_in_expression():
    x = (yield 1) + (yield 2)
    return x


def generator_in_try():
    try:
        yield 1
    finally:
        print("done")


def generator_with_except():
    try:
        yield 1
    except GeneratorExit:
        raise
    except ValueError as exc:
        yield exc


def generator_in_loop(items):
    for item in items:
        if item:
            yield item
        else:
            continue


async def coroutine():
    return 1


async def awaits(other):
    value = await other
    return value


async def await_expression(a, b):
    return await a + await b


async def sleeps():
    await asyncio.sleep(0)


async def async_for(aiterable):
    total = 0
    async for item in aiterable:
        total += item
    return total


async def async_for_else(aiterable):
    async for item in aiterable:
        if item:
            break
    else:
        return None
    return item


async def async_with(manager):
    async with manager as value:
        return value


async def async_with_two(a, b):
    async with a as x, b as y:
        await x
        await y


async def async_generator():
    yield 1
    await asyncio.sleep(0)
    yield 2


async def async_generator_for(aiterable):
    async for x in aiterable:
        yield x * 2


async def async_with_in_loop(managers):
    for manager in managers:
        async with manager:
            continue


async def await_in_try(coro):
    try:
        return await coro
    except asyncio.CancelledError:
        return None
    finally:
        await asyncio.sleep(0)


def generator_expression_holder():
    return (x for x in range(3))


def send_protocol(gen):
    value = gen.send(None)
    while True:
        try:
            value = gen.send(value)
        except StopIteration as stop:
            return stop.value


def while_yield_continue(paths, top):
    while paths:
        path = paths.pop()
        if isinstance(path, tuple):
            yield path
            continue
        print(path)
        if top:
            yield path


def generator_return_in_loop(grouping):
    last = None
    for interval in grouping:
        if interval == -1:
            return
        yield interval
        last = interval


# A try whose clause leaves, then a yield from: after the statement or its else
# (where the compiler lays the yield from's own handler out tells them apart).
def try_in_for_branch_then_yield_from_continue():
    for e in es:
        if a:
            try:
                t()
            except E:
                continue
            v = x()
            yield from z(v)
        else:
            yield e


def try_in_for_then_yield_from_continue():
    for e in es:
        try:
            t()
        except E:
            continue
        v = x()
        yield from z(v)


def try_in_for_branch_then_yield_from_raise():
    for e in es:
        if a:
            try:
                t()
            except E:
                raise
            v = x()
            yield from z(v)
        else:
            yield e


def try_in_for_else_yield_from_raise():
    for e in es:
        try:
            t()
        except E:
            raise
        else:
            v = x()
            yield from z(v)


def all_models(models):
    # A generator's try whose clause falls off onto the closing return on two
    # ways (3.10+ copy that return onto each, on the line of the jump there):
    # copies all the same, whatever their lines.
    satisfiable = False
    try:
        while True:
            yield next(models)
            satisfiable = True
    except StopIteration:
        if not satisfiable:
            yield False
