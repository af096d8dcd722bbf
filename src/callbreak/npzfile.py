"""Arrays with their settings in one ``.npz`` file: the self-play shards (``selfplay``) and the
learned player's weights (``players.learned``), each written with a member ``meta`` holding a
JSON object. One reader, so that every way such a file can be missing, cut short or not one at
all fails the same way: with :class:`NpzError`, which its caller words for its own file."""

from __future__ import annotations

import json
import os
import zipfile
from typing import Any

import numpy as np

from callbreak.errors import CallbreakError

__all__ = ["NpzError", "read"]


class NpzError(CallbreakError):
    """A file that is not an ``.npz`` with a JSON ``meta`` member: why, in the reader's words."""


def read(path: str | os.PathLike[str]) -> tuple[dict[str, np.ndarray], Any]:
    """The file's arrays but ``meta``, and ``meta`` decoded (any JSON value: the caller checks
    it is its own format); NpzError for a file missing, unreadable, corrupt or without it."""
    try:
        with np.load(path, allow_pickle=False) as loaded:
            members = {name: loaded[name] for name in loaded.files}
        meta = json.loads(str(members.pop("meta")))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as error:
        raise NpzError(str(error)) from None
    return members, meta
