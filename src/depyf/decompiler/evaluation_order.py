"""When each value on the symbolic stack was evaluated.

Every value a stack machine pushes is stamped (its ``_seq``) with the next
number of one counter, and a statement takes the next number when it runs.
Spilling (:mod:`.spill`) compares the two: a value with a smaller number was
evaluated before the statement and may have to keep its place. One counter
for every machine, so that numbers from nested machines compare too.

Example::

    >>> first, second = next(PUSH_TIMES), next(PUSH_TIMES)
    >>> first < second
    True
"""
import itertools

#: the evaluation times, in the order values are pushed and statements run
PUSH_TIMES = itertools.count()
