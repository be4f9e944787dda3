"""Loops whose body is a try/except/finally or a with statement, left by
continue, break and return from the clauses, the try body and the with body
(issue 19: the continue and break of except clauses inside a try/finally were
lost on 3.10+, and a while loop's break through a finally read as a return)."""


class CM:
    def __init__(self, log, tag):
        self.log, self.tag = log, tag

    def __enter__(self):
        self.log.append(('enter', self.tag))
        return self

    def __exit__(self, *a):
        self.log.append(('exit', self.tag, a[0].__name__ if a[0] else None))
        return self.tag == 'swallow'


def chk(i, log):
    log.append(('chk', i))
    if i == 1:
        raise KeyError(i)
    if i == 2:
        raise ValueError(i)
    if i == 3:
        raise TypeError(i)
    return i


def for_continue_break_through_finally(items, log):
    for i in items:
        try:
            log.append(('try', i))
            if i == 1:
                raise KeyError(i)
            if i == 2:
                raise ValueError(i)
        except KeyError:
            log.append('k')
            continue
        except ValueError:
            log.append('v')
            break
        finally:
            log.append('fin')
        log.append(('after', i))
    return log


def while_continue_break_through_finally(items, log):
    it = iter(items)
    n = 0
    while n < 10:
        n += 1
        try:
            x = next(it)
            chk(x, log)
        except KeyError:
            log.append('k')
            continue
        except ValueError:
            log.append('v')
            break
        except StopIteration:
            break
        finally:
            log.append('fin')
        log.append(('after', n))
    return log


def for_else_continue_break_through_finally(items, log):
    for i in items:
        try:
            chk(i, log)
        except KeyError:
            log.append('k')
            continue
        except ValueError:
            log.append('v')
            break
        finally:
            log.append('fin')
        log.append(('after', i))
    else:
        log.append('else')
    return log


def nested_for_continue_break_through_finally(rows, log):
    for row in rows:
        for i in row:
            try:
                chk(i, log)
            except KeyError:
                log.append('k')
                continue
            except ValueError:
                log.append('v')
                break
            finally:
                log.append('fin')
            log.append(('after', i))
        log.append('row')
    return log


def return_in_finally_body(items, log):
    for i in items:
        try:
            chk(i, log)
        except KeyError:
            log.append('k')
            continue
        finally:
            log.append('fin')
            if i == 0:
                return 'ret0'
        log.append(('after', i))
    return log


def with_around_try_continue_break(items, log):
    for i in items:
        with CM(log, i):
            try:
                chk(i, log)
            except KeyError:
                log.append('k')
                continue
            except ValueError:
                break
        log.append(('after', i))
    return log


def with_body_continue_break(items, log):
    for i in items:
        with CM(log, 'a'):
            if i == 1:
                continue
            if i == 2:
                break
            log.append(i)
        log.append(('after', i))
    return log


def try_body_continue_break_through_finally(items, log):
    for i in items:
        try:
            if i == 1:
                continue
            if i == 2:
                break
            chk(i, log)
        finally:
            log.append('fin')
        log.append(('after', i))
    return log


def named_clauses_continue_break_through_finally(items, log):
    for i in items:
        try:
            chk(i, log)
        except KeyError as e:
            log.append(('k', e.args))
            continue
        except ValueError as e:
            log.append(('v', e.args))
            break
        finally:
            log.append('fin')
        log.append(('after', i))
    return log


def nested_finally_continue_break(items, log):
    for i in items:
        try:
            try:
                chk(i, log)
            except KeyError:
                continue
            finally:
                log.append('in')
        except ValueError:
            break
        finally:
            log.append('out')
        log.append(('after', i))
    return log


def clause_continue_return_through_finally(items, log):
    for i in items:
        try:
            chk(i, log)
        except KeyError:
            log.append('k')
            continue
        except ValueError:
            log.append('v')
            return 'rv'
        finally:
            log.append('fin')
        log.append(('after', i))
    return log


def while_try_else_finally(items, log):
    while items:
        i = items.pop()
        try:
            chk(i, log)
        except KeyError:
            if i:
                continue
            log.append('k0')
        else:
            log.append('else')
            if i == 0:
                break
        finally:
            log.append('fin')
        log.append(('after', i))
    return log


def with_around_try_finally_continue(items, log):
    for i in items:
        with CM(log, 'a'):
            try:
                chk(i, log)
            except KeyError:
                continue
            finally:
                log.append('fin')
        log.append(('after', i))
    return log


def swallowing_with_in_try_finally(items, log):
    for i in items:
        try:
            with CM(log, 'swallow'):
                chk(i, log)
                if i == 0:
                    continue
        except ValueError:
            break
        finally:
            log.append('fin')
        log.append(('after', i))
    return log


def break_through_finally_rebinding(a, log):
    n = 0
    while n < 3:
        n += 1
        try:
            x = 1
            if a:
                raise ValueError
        except ValueError:
            break
        finally:
            x = 2
        log.append(n)
    return x


def clause_falls_off_before_finally(a, log):
    try:
        x = 1
        if a:
            raise ValueError
    except ValueError:
        pass
    finally:
        x = 2
    return x


def finally_reads_the_clause_result(a, log):
    try:
        x = 1
        if a:
            raise ValueError
    except ValueError:
        log.append('v')
    finally:
        x = x + 2
    return x


def for_break_through_finally_rebinding(a, log):
    for i in range(3):
        try:
            x = i
            if a:
                raise ValueError
        except ValueError:
            break
        finally:
            x = 10
    return x


ITEMS = [0, 1, 0, 3, 2, 0]
INPUTS = (ITEMS, [1, 1], [0, 0], [], [4, 0, 2])
ON_ITEMS = (
    "for_continue_break_through_finally",
    "while_continue_break_through_finally",
    "for_else_continue_break_through_finally",
    "return_in_finally_body",
    "with_around_try_continue_break",
    "with_body_continue_break",
    "try_body_continue_break_through_finally",
    "named_clauses_continue_break_through_finally",
    "nested_finally_continue_break",
    "clause_continue_return_through_finally",
    "while_try_else_finally",
    "with_around_try_finally_continue",
    "swallowing_with_in_try_finally",
)
CHECKS = [(name, (list(items), [])) for name in ON_ITEMS for items in INPUTS]
CHECKS += [("nested_for_continue_break_through_finally", ([items, [1, 0], items], [])) for items in INPUTS]
CHECKS += [(name, (a, [])) for name in
           ("break_through_finally_rebinding", "clause_falls_off_before_finally",
            "finally_reads_the_clause_result", "for_break_through_finally_rebinding")
           for a in (0, 1)]
