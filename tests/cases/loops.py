"""Loops: while and for, break/continue/else, nesting, loops inside try."""


def for_loop(items):
    total = 0
    for item in items:
        total += item
    return total


def for_with_unpacking(pairs):
    for key, value in pairs:
        print(key, value)


def for_with_star_unpacking(rows):
    for first, *rest in rows:
        print(first, rest)


def for_break(items):
    for item in items:
        if item is None:
            break
        print(item)


def for_continue(items):
    for item in items:
        if not item:
            continue
        print(item)


def for_else(items, target):
    for item in items:
        if item == target:
            print("found")
            break
    else:
        print("not found")


def for_else_return(items, target):
    for index, item in enumerate(items):
        if item == target:
            return index
    else:
        return -1


def while_loop(n):
    i = 0
    while i < n:
        i += 1
    return i


def while_true(stream):
    while True:
        line = stream.readline()
        if not line:
            break
        print(line)


def while_true_return(stream):
    while True:
        value = stream.read()
        if value:
            return value


def while_else(n):
    while n > 0:
        n -= 1
        if n == 5:
            break
    else:
        n = -1
    return n


def while_continue(n):
    while n:
        n -= 1
        if n % 2:
            continue
        print(n)


def nested_loops(rows):
    for row in rows:
        for cell in row:
            if cell:
                break
        else:
            continue
        print(row)


def nested_while_for(n, items):
    while n:
        for item in items:
            if item == n:
                n -= 1
                break
        n -= 1


def loop_with_complex_condition(a, b):
    while a and not b:
        a -= 1
    return a


def loop_in_try(items):
    try:
        for item in items:
            print(item)
    except ValueError:
        pass


def try_in_loop(items):
    for item in items:
        try:
            print(item)
        except ValueError:
            continue
        except KeyError:
            break
        else:
            print("ok")


def loop_in_finally(items):
    try:
        return len(items)
    finally:
        for item in items:
            print(item)


def for_over_range(n):
    squares = []
    for i in range(n):
        squares.append(i * i)
    return squares


def for_with_attribute_target(obj, items):
    for obj.value in items:
        pass


def for_with_subscript_target(d, items):
    for d["key"] in items:
        pass


def empty_loop_bodies(items, n):
    for _ in items:
        pass
    while n:
        n -= 1


def loop_and_return_inside(items):
    for item in items:
        for other in item:
            if other:
                return other
    return None


def while_with_else_and_continue(queue):
    while queue:
        item = queue.pop()
        if item is None:
            continue
        if item == "stop":
            break
    else:
        return "drained"
    return "stopped"


def while_and_walrus(stream, s):
    while len(s) < 76 and (chunk := stream.read(76 - len(s))):
        s += chunk
    return s


def while_walrus_and_more(stream, s):
    while len(s) < 76 and (chunk := stream.read(76 - len(s))) and s:
        s += chunk
    return s


def break_ending_if_branch_before_elif(classes, unique, roots):
    for c in classes:
        if c.bases:
            for parent in c.bases:
                if unique and parent:
                    break
        elif c not in roots:
            roots.append(c)
    return roots


def while_if_continue_then_code(value, parts):
    while value and value[0]:
        if value[0] == '.':
            parts.append(1)
            value = value[1:]
            continue
        elif value[0] == '\\':
            parts.append(2)
            continue
        parts.append(3)
    return parts


def elif_after_branch_that_breaks(bases, data_types, kind):
    for base in bases:
        if base is object:
            continue
        elif isinstance(base, kind):
            if base.member is not object:
                data_types.add(base.member)
                break
        elif '__new__' in base.__dict__:
            data_types.add(base)
    return data_types


def elif_chain_with_inner_if_ending_loop(args, parameters):
    for t in args:
        if isinstance(t, type):
            pass
        elif isinstance(t, tuple):
            print(t)
        elif hasattr(t, '__typing_subst__'):
            if t not in parameters:
                parameters.append(t)
        else:
            print(t, parameters)
    return parameters


def while_one_around_while(self, tag, literator):
    while 1:
        while self.get_response():
            if self.tagged_commands[tag]:
                return tag
        if literator:
            literal = literator(self.continuation_response)
        self.send(literal)
        if not literator:
            break
    return tag


def while_and_with_or_inside(a, b, post):
    while a[:post or None] and b[:post or None] and a[post - 1] == b[post - 1]:
        post -= 1
    return post


def while_true_not_chain_continue(random):
    while True:
        u1 = random()
        if not 1e-7 < u1 < 0.9999999:
            continue
        u2 = 1.0 - random()
        if u2 > u1:
            return u2


def for_two_continues(items, attrs):
    for key, value in items:
        if value == "":
            continue
        if key not in attrs:
            continue
        print(key)


def if_around_while_same_exit(self, n, buf):
    if n > 0:
        while not self.eof:
            data = self.read(n)
            if n < len(data):
                buf += data[:n]
                break
            if data:
                buf += data
                break
    return buf


def while_if_continue_then_break(heap, startpos, pos):
    newitem = heap[pos]
    while pos > startpos:
        parentpos = (pos - 1) >> 1
        parent = heap[parentpos]
        if newitem < parent:
            heap[pos] = parent
            pos = parentpos
            continue
        break
    heap[pos] = newitem


def for_nested_if_then_continue(self, name, members, tarinfo):
    skipping = tarinfo is not None
    for member in reversed(members):
        if skipping:
            if tarinfo.offset == member.offset:
                skipping = False
            continue
        if name == member.name:
            return member


def while_or_break(resp):
    dirname = ''
    i = 5
    n = len(resp)
    while i < n:
        c = resp[i]
        i = i + 1
        if c == '"':
            if i >= n or resp[i] != '"':
                break
            i = i + 1
        dirname = dirname + c
    return dirname


def for_or_continue(items, seen):
    for item in items:
        if item is None or item in seen:
            continue
        seen.add(item)


def for_body_returns_none(items, g):
    for item in items:
        if item:
            return
        g(item)


def while_true_try_while(gen, size, push):
    c_size = 0
    while True:
        try:
            while c_size < size:
                c = next(gen)
                push(c)
                if c:
                    c_size += 1
        except StopIteration:
            if not c_size:
                return
        yield c_size
        c_size = 0


def while_true_ending_or_break(random, d):
    while 1:
        u1 = random()
        u2 = random()
        if u2 < 1.0 - d * d or u2 <= (1.0 - d) * u1:
            break
    return u1


def for_if_else_continue_mid_body(pairs, strict, keep):
    r = []
    for name_value in pairs:
        nv = name_value.split('=', 1)
        if len(nv) != 2:
            if strict:
                raise ValueError(name_value)
            if keep:
                nv.append('')
            else:
                continue
        r.append(nv)
    return r


def while_test_with_empty_body(self, c, d):
    while self.next() is not None:
        pass
    while c() and d:
        pass
    self.loaded = True


def while_test_with_empty_body_ending_a_for(xs, c):
    for x in xs:
        while c(x):
            pass


def while_if_else_raising_after_the_jump_back(rest, x, y):
    while rest:
        if x:
            rest = rest[1:]
        elif y:
            return 3
        else:
            raise ValueError(x)
    while rest and x:
        if y:
            pass
        else:
            raise ValueError(x)


def for_if_not_in_continue(versions, caps):
    for version in versions:
        if not version in caps:
            continue
        return version


def while_around_waiting_while(conn, more):
    while more():
        while conn.poll():
            pass


def while_elif_is_else_break(get_origin, get_args, t, Required, ReadOnly):
    while True:
        origin = get_origin(t)
        if origin is Required:
            yield Required
            t = get_args(t)
        elif origin is ReadOnly:
            yield ReadOnly
            t = get_args(t)
        else:
            break


def poll_until_acquired(lock, deadline, interval):
    # The test branches inside (a conditional expression in an operand): its
    # jumps land in it, at the top and (3.10-3.13) in the copy at the bottom.
    while not lock.acquire(timeout=interval if deadline is None else deadline):
        interval += 1
    return interval


def call_until_true(f, a, b, c):
    while f(a if c else b):
        pass


def wait_for_each(nodes, ready, timed_out):
    # A while nested in a for, whose if/break leaves as its test does (both
    # to the for's next iteration): the break is the body's, not part of the
    # test (3.10-3.13: the bottom copy of the test shows where it ends;
    # 3.14: the test's exit threaded back to the for is no sign of an else).
    for node in nodes:
        while ready(node):
            if timed_out():
                break


def rewire_each(nodes, choose, taken, give_up, rewire):
    # A while/else nested in a for, its break threaded to the for's next
    # iteration (3.12+ fold `if c: break` into one conditional jump there;
    # 3.14 lands it on a jump there after the latch): the code after the
    # while's exit is its else.
    for node in nodes:
        other = choose()
        while taken(node, other):
            other = choose()
            if give_up():
                break
        else:
            rewire(node, other)


def split_into_runs(seq, same, runs, run):
    # `break` out of `while True` from an except clause, the code after the
    # loop reached only that way: 3.12+ lay it out after the clause's
    # POP_EXCEPT, on its own lines (a return of the clause's own would give
    # POP_EXCEPT its line).
    while True:
        try:
            item = next(seq)
        except StopIteration:
            break
        if same(item):
            run.append(item)
        else:
            runs.append(run)
    return runs


def common_radicals(terms, radical, prim, merge):
    # A for/else ending an if's branch, its break a copy of the code after
    # the if (3.10+ copy the small block that returns onto the break): the
    # break goes there, nothing of it belongs after the loop.
    if radical:
        for term in terms:
            if not term:
                break
        else:
            if merge:
                prim = merge(terms)
    return prim


def check_each(values, supported, inputs):
    # An if ending a loop body whose own body starts with `if c: continue`:
    # 3.12+ fold the outer test's jump to the end of the body into a jump back
    # to the head, on the test's line; the inner test is on a later line and
    # belongs to the body (read as one chain: `if ok or c: continue`).
    for value in values:
        if not supported(value):
            if inputs and value is None:
                continue
            raise ValueError(value)


def settle_each(nodes, unsettled, settle, give_up, fallback, done):
    # A while/else whose body ends in `if c: break`, with more of the for's
    # body after it: 3.14+ fold no jump back that closes a loop into the test
    # before it (the break laid out after it, which that test jumps over).
    for node in nodes:
        while unsettled(node):
            settle(node)
            if give_up(node):
                break
        else:
            fallback(node)
        done(node)


def empty_target_loop(rows):
    count = 0
    for () in rows:
        count += 1
    return count


def empty_target_assignments(empty, pair):
    () = empty
    first, () = pair
    return first
