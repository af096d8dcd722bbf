"""How the server encodes what it sends as JSON text: one function, so that the encoder is
chosen in one place (measured in docs/benchmarks.md, issue 40: orjson encodes the views about
four times faster than the standard library's ``json``).

orjson writes compact JSON (no spaces after ``,`` and ``:``) and non-ASCII text as UTF-8 rather
than ``\\u`` escapes: the same values to any JSON reader. Keys that are not strings (a seat's
number) are written as strings, as ``json.dumps`` writes them.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["dumps"]

# NumPy's numbers as JSON numbers: the searches and the hint's counts are NumPy floats and
# ints, which ``json.dumps`` took (a float64 is a float) and orjson refuses without this.
_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY


def dumps(value: Any) -> str:
    """``value`` as JSON text (what a socket's text frame or an HTTP body carries)."""
    return orjson.dumps(value, option=_OPTIONS).decode()
