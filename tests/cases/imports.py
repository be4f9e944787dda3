"""Import statements of every shape, at module level and inside functions."""
import os
import os.path
import collections.abc as cabc
import json as _json, sys
from functools import partial
from functools import reduce as fold, wraps
from itertools import (
    chain,
    count as counter,
)
from os.path import *
from . import sibling
from .. import cousin
from .package import module as alias
from ...deep.package import name


def local_import():
    import re
    return re.compile("x")


def local_from_import():
    from collections import OrderedDict, defaultdict as dd
    return OrderedDict(), dd(list)


def dotted_local_import():
    import xml.etree.ElementTree
    import xml.dom.minidom as minidom
    return xml.etree.ElementTree, minidom


def relative_local_import():
    from .helpers import helper
    from . import other
    return helper, other


def conditional_import(flag):
    if flag:
        import json
    else:
        json = None
    return json


def import_in_try():
    try:
        import cPickle as pickle
    except ImportError:
        import pickle
    return pickle


def global_import():
    global textwrap
    import textwrap
    return textwrap.dedent("  x")


def import_shadowing_module_name(os):
    from os import sep
    return os, sep
