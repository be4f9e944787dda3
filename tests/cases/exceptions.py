"""Exceptions: try/except/else/finally, nesting, control flow through finally."""


def try_except(f):
    try:
        f()
    except Exception:
        print("failed")


def try_except_as(f):
    try:
        return f()
    except ValueError as exc:
        return exc


def bare_except(f):
    try:
        f()
    except:
        pass


def several_handlers(f):
    try:
        f()
    except KeyError:
        return 1
    except (TypeError, ValueError) as exc:
        return exc
    except Exception:
        return 3


def try_else(f):
    try:
        value = f()
    except ValueError:
        value = None
    else:
        value += 1
    return value


def try_finally(f):
    try:
        f()
    finally:
        print("cleanup")


def try_except_else_finally(f):
    try:
        value = f()
    except ValueError:
        value = 0
    else:
        value *= 2
    finally:
        print("done")
    return value


def nested_try(f, g):
    try:
        try:
            f()
        except ValueError:
            g()
    except Exception as outer:
        return outer
    finally:
        print("outer")


def return_in_finally_block(f):
    try:
        return f()
    finally:
        print("finally runs")


def return_in_try_and_except(f):
    try:
        return f()
    except ValueError:
        return None


def break_in_try_finally(items):
    for item in items:
        try:
            if item:
                break
        finally:
            print(item)


def continue_in_try_finally(items):
    for item in items:
        try:
            if item:
                continue
            print(item)
        finally:
            print("next")


def break_in_except(items, f):
    for item in items:
        try:
            f(item)
        except ValueError:
            break


def raise_simple():
    raise ValueError


def raise_instance(message):
    raise ValueError(message)


def raise_from(f):
    try:
        f()
    except KeyError as exc:
        raise LookupError("missing") from exc


def raise_from_none(f):
    try:
        f()
    except KeyError:
        raise ValueError from None


def reraise(f):
    try:
        f()
    except Exception:
        print("logging")
        raise


def handler_uses_exception(f):
    try:
        f()
    except OSError as err:
        if err.errno == 2:
            return None
        raise


def except_in_loop_with_else(items, f):
    for item in items:
        try:
            f(item)
        except ValueError:
            continue
        else:
            return item
    return None


def try_in_except(f, g):
    try:
        f()
    except ValueError:
        try:
            g()
        except TypeError:
            pass


def try_in_finally(f, g):
    try:
        f()
    finally:
        try:
            g()
        except Exception:
            pass


def finally_with_assignment(f):
    result = None
    try:
        result = f()
    finally:
        result = result or 0
    return result


def exception_variable_reused(f):
    exc = None
    try:
        f()
    except Exception as exc:
        print(exc)
    return 1


def return_in_finally_overrides(f):
    try:
        return f()
    finally:
        print("ending")


def try_except_pass_then_code(f):
    try:
        f()
    except Exception:
        pass
    return 2


def except_raises_then_try(obj, key):
    try:
        cache = obj.__dict__
    except AttributeError:
        raise TypeError("no __dict__") from None
    value = cache.get(key)
    if value is None:
        value = key * 2
        try:
            cache[key] = value
        except TypeError:
            raise TypeError("read-only") from None
    return value


def except_raises_else_try(obj, key):
    try:
        cache = obj.__dict__
    except AttributeError:
        raise
    else:
        try:
            cache[key] = 1
        except TypeError:
            return None
    return cache


def except_returns_none_then_try(obj, find):
    try:
        doc = obj.__doc__
    except AttributeError:
        return None
    if doc is None:
        try:
            doc = find(obj)
        except TypeError:
            return None
    return doc


def except_return_then_if_try(server):
    try:
        request = server.get()
    except OSError:
        return
    if server.ok(request):
        try:
            server.process(request)
        except Exception:
            server.fail(request)
    else:
        server.close(request)


def else_try_then_try_after(gen, typ):
    if typ is None:
        try:
            next(gen)
        except StopIteration:
            return False
        else:
            try:
                raise RuntimeError("did not stop")
            finally:
                gen.close()
    try:
        gen.throw(typ)
    except StopIteration:
        return True
    try:
        raise RuntimeError("did not stop after throw")
    finally:
        gen.close()


def try_ends_if_branch_before_else(self, args):
    if self.exit_on_error:
        try:
            args = self.parse(args)
        except ValueError as err:
            self.error(str(err))
    else:
        args = self.parse(args)
    if args:
        args.extend(1)
    return args


def except_continue_then_if(getters):
    for getter in getters:
        try:
            node = getter()
        except:
            continue
        if node is not None and 0 <= node < 10:
            return node
    return None


def except_pass_else_if(getters):
    for getter in getters:
        try:
            node = getter()
        except:
            pass
        else:
            if node is not None and 0 <= node < 10:
                return node
    return None


def if_branch_ends_try_before_with(filename, check):
    result = False
    try:
        if hasattr(filename, "read"):
            result = check(fp=filename)
        else:
            with open(filename, "rb") as fp:
                result = check(fp)
    except OSError:
        pass
    return result


def if_else_ending_except_clause(self, msgid1, msgid2, n):
    try:
        tmsg = self.catalog[(msgid1, self.plural(n))]
    except KeyError:
        if self.fallback:
            return self.fallback.ngettext(msgid1, msgid2, n)
        if n == 1:
            tmsg = msgid1
        else:
            tmsg = msgid2
    return tmsg


def retry_loop_else_break(loop, source):
    i = 0
    while True:
        try:
            tasks = list(source)
        except RuntimeError:
            i += 1
            if i >= 1000:
                raise
        else:
            break
    return {t for t in tasks if t is not loop}


def except_continue_then_comprehension(items, f):
    for item in items:
        try:
            f(item)
        except ValueError:
            continue
        parts = [p for p in item if p]
        print(parts)
    return items


def try_in_if_branch_before_elif(self, dirname, flag):
    if dirname == '..':
        try:
            return self.voidcmd('CDUP')
        except KeyError as msg:
            if msg.args[0][:3] != '500':
                raise
    elif flag:
        dirname = '.'
    return self.voidcmd('CWD ' + dirname)


def for_try_raise_else_if(xs, f, add):
    for attr in xs:
        try:
            c = f(attr)
        except Exception as e:
            raise TypeError() from e
        else:
            if not c:
                add(attr)


def for_try_raise_then_if(xs, f, add):
    for attr in xs:
        try:
            c = f(attr)
        except Exception as e:
            raise TypeError() from e
        if not c:
            add(attr)


def except_continue_in_else_branch(args, deco):
    sts = 0
    for file in args:
        if file == '-':
            fp = deco
        else:
            try:
                fp = open(file, "rb")
            except OSError:
                sts = 1
                continue
        print(fp)
    return sts


def try_except_return_then_if_else_returns(self, key, default=None):
    try:
        wr = self.data[key]
    except KeyError:
        return default
    else:
        o = wr()
        if o is None:
            return default
        else:
            return o


def except_clause_ending_if_else_returns(match):
    s = match.group(0)
    try:
        return TABLE[s]
    except KeyError:
        n = ord(s)
        if n < 0x10000:
            return '\\u{0:04x}'.format(n)
        else:
            n -= 0x10000
            return '\\u{0:04x}\\u{1:04x}'.format(n >> 10, n & 0x3ff)


def try_body_ending_if_else_returns(localetuple):
    try:
        language, encoding = localetuple
        if encoding is None:
            return language
        else:
            return language + '.' + encoding
    except (TypeError, ValueError):
        raise TypeError('Locale must be a pair') from None


def try_body_returns_constant_clause_falls_off(f, g):
    try:
        f.seek(f.tell())
        return True
    except (ValueError, AttributeError) as e:
        g(e)
    return False


def try_body_returns_constant_clause_returns(f):
    try:
        f()
        return None
    except ValueError:
        return False


def try_body_returns_in_for(items, g):
    for item in items:
        try:
            item.seek()
            return
        except ValueError:
            g()


def try_body_returns_constant(name):
    try:
        t = open(name)
        t.close()
        return True
    except OSError:
        return False


def try_except_return_else_body(doc):
    try:
        lines = doc.expandtabs().split('\n')
    except UnicodeError:
        return None
    else:
        margin = len(lines)
        if lines:
            lines[0] = lines[0].lstrip()
        return margin


def try_else_return_in_except_clause(self, obj):
    # the else returns out of the enclosing clause (SWAP 2; POP_EXCEPT; RETURN_VALUE
    # past that clause's covered range); 3.12 lays the clause's code out in order
    try:
        return obj.value
    except LookupError:
        try:
            attr = str(obj)
        except Exception:
            pass
        else:
            return getattr(obj, attr)
        return 5


def if_try_else_return_in_except_clause(self, obj):
    try:
        return obj.value
    except LookupError:
        if obj:
            try:
                attr = str(obj)
            except Exception:
                pass
            else:
                return getattr(obj, attr)


def try_else_holding_try_in_except_clause(self, obj, argument):
    # (jinja2's Environment.getitem) the else's own try returns; the clauses of
    # both fall off to the code after the if
    try:
        return obj[argument]
    except (AttributeError, TypeError, LookupError):
        if isinstance(argument, str):
            try:
                attr = str(argument)
            except Exception:
                pass
            else:
                try:
                    return getattr(obj, attr)
                except AttributeError:
                    pass
        return self.undefined(obj=obj, name=argument)


def try_else_holding_try_ending_except_clause(obj, argument):
    try:
        return obj[argument]
    except LookupError:
        if argument:
            try:
                attr = str(argument)
            except Exception:
                pass
            else:
                try:
                    return getattr(obj, attr)
                except AttributeError:
                    pass


def if_try_finally_ends_function(self):
    # the closing return's copies end the if's body too: none is written
    if self.sock is not None:
        try:
            self.quit()
        except (OSError, EOFError):
            pass
        finally:
            if self.sock is not None:
                self.close()


def try_else_ends_function(self, main):
    # (inspect.getmodule) the closing return's copies end the else's branches
    try:
        file = self.get()
    except TypeError:
        pass
    else:
        if main:
            return main
        builtin = self.builtins
        if hasattr(builtin, self.name):
            if builtin is self:
                return builtin


def except_clause_try_else_try_return(obj, argument):
    try:
        return obj[argument]
    except LookupError:
        try:
            attr = str(argument)
        except Exception:
            pass
        else:
            try:
                return getattr(obj, attr)
            except AttributeError:
                pass
        return 2


def except_as_try_returns(f, E, T):
    try:
        return f()
    except E as e:
        try:
            return e.resume_parse()
        except T:
            pass
        return 2


def except_as_try_returns_reraises(f, E, T):
    try:
        return f()
    except E as e:
        try:
            return e.resume_parse()
        except T:
            raise


# A try ending a while body, its clause leaving the loop, then an if: after the
# statement or its else (3.14 lays the two out apart where 3.13 does not).

def try_break_then_if_return(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            break
        if c():
            return 1


def try_break_else_if_return(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            break
        else:
            if c():
                return 1


def try_raise_then_if_return(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            raise
        if c():
            return 1


def try_raise_else_if_return(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            raise
        else:
            if c():
                return 1


def try_break_then_if_break(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            break
        if c():
            break


def try_break_else_if_break(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            break
        else:
            if c():
                break


def try_raise_then_if_break(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            raise
        if c():
            break


def try_raise_else_if_break(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            raise
        else:
            if c():
                break


def try_break_then_if_call(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            break
        if c():
            x()


def try_break_else_if_call(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            break
        else:
            if c():
                x()


def try_raise_then_if_call(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            raise
        if c():
            x()


def try_raise_else_if_call(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            raise
        else:
            if c():
                x()


def try_break_then_if_else(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            break
        if c():
            x()
        else:
            y()


def try_break_else_if_else(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            break
        else:
            if c():
                x()
            else:
                y()


def try_raise_then_if_else(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            raise
        if c():
            x()
        else:
            y()


def try_raise_else_if_else(w, t, c, x, y):
    while w():
        try:
            t()
        except ValueError:
            raise
        else:
            if c():
                x()
            else:
                y()


def with_in_try_then_continue(paths, found):
    # 3.13+: the with's exit jumps to the body's end and on past the handler;
    # the compiler threads that jump, and what it lands on is after the try.
    for path in paths:
        try:
            with open(path) as f:
                pass
        except UnicodeDecodeError:
            continue
        for line in found:
            print(path, line)


def with_in_try_then_call(paths):
    for path in paths:
        try:
            with open(path) as f:
                pass
        except OSError:
            continue
        print(path)


def first_driver_that_works(filename, drivers):
    # `return` from a loop drops the iterator first, then loads its constant:
    # both past the try body's covered range.
    for driver in drivers:
        try:
            driver(filename)
        except ValueError:
            continue
        else:
            return
    raise ValueError(filename)


def first_driver_that_works_value(filename, drivers):
    for driver in drivers:
        try:
            driver(filename)
        except ValueError:
            pass
        else:
            return 1
    raise ValueError(filename)


def first_name_that_can_be_made(names, mkdir, fallback, log):
    # The else of the try breaks out of a for loop with an else of its own;
    # 3.12+ close the loop from the except clause, laid out last.
    for name in names:
        try:
            mkdir(name)
        except OSError as ex:
            if ex.errno != 17:
                raise
        else:
            path = name
            break
    else:
        path = fallback()
    log(path)
    return path


def first_name_that_can_be_made_bare(names, mkdir, fallback, log):
    for name in names:
        try:
            mkdir(name)
        except OSError:
            pass
        else:
            break
    else:
        fallback()
    log(name)


def make_dirs_unless_there(path, makedirs, EEXIST, ENOTEMPTY):
    # Both ways past the test go to copies of the clause's way out (which
    # returns): 3.11 lays the second jump's copy after the first's, 3.12 before.
    try:
        makedirs(path)
    except OSError as e:
        if e.errno != EEXIST and e.errno != ENOTEMPTY:
            raise


def close_quietly(g, h, report):
    try:
        g()
    except BaseException as e:
        try:
            h()
        except BaseException as e2:
            report(e2)


def import_or_stand_in(TYPE_CHECKING, missing):
    # The if's jump goes to a copy of the clause's way out laid out after the
    # clause's own (3.10): it is where the clause body runs on, not past it.
    try:
        from json import dumps as encode
    except ImportError:
        if not TYPE_CHECKING:
            encode = missing
    return encode


def fall_back_or_return(convert, fallback, Failed, Unsupported, Refused):
    # A return in the else of a try inside a named except clause: the clause's
    # way out (value, POP_EXCEPT, the name's clean-up, return) comes before the
    # inner handler, which the clause's body still holds (3.11+).
    try:
        value = convert()
    except Failed as exc:
        try:
            result = fallback(exc)
        except Unsupported:
            raise Refused(exc)
        else:
            return result
    return value



def call_or_quiet_down(func, bar):
    # A try ending a named except clause that ends the function: 3.12+ copy
    # the closing return onto the inner try's two ways out; the clause falls
    # off, it has no `return` of its own.
    try:
        return func()
    except OSError as e:
        if e.errno != 5:
            raise
        try:
            bar.miniters = 1
        except ReferenceError:
            pass


def follow_attribute_path(path, root):
    # An explicit `return None` in a clause inside a loop: its iterator drop
    # and POP_EXCEPT share its line; it is no copy of the closing return.
    for item in path:
        try:
            root = getattr(root, item.strip(), None)
        except Exception:
            return None
        if root is None:
            return None
    return root
