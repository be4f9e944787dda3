"""The one kind of warning the torch layer gives.

Nothing in :mod:`depyf.dynamo` may break the user's program: where part of
its work fails (a dump, a breakpoint, a missing torch feature), it warns with
:class:`DepyfWarning` and goes on.

Example::

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("depyf: nothing dumped", DepyfWarning)
    >>> caught[0].category.__name__
    'DepyfWarning'
"""


class DepyfWarning(UserWarning):
    """depyf could not do part of its work; the program itself is unaffected."""
