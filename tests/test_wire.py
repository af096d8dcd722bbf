"""The server's JSON encoder (``web.wire``): the same values as the standard library's."""

from __future__ import annotations

import json

import numpy as np

from callbreak.web import wire


def test_the_encoder_writes_what_json_reads_back_the_same() -> None:
    value = {
        "type": "state",
        "name": "आशा ✓",  # written as UTF-8, not escaped: the same text once read
        "seats": [None, 1, 2.5, True, {"calls": [3, 4]}],
        "deadline": 1_765_000_000.123456,
    }
    assert json.loads(wire.dumps(value)) == value


def test_number_keys_are_written_as_json_writes_them() -> None:
    assert json.loads(wire.dumps({0: "a", 3: "b"})) == json.loads(json.dumps({0: "a", 3: "b"}))


def test_the_text_can_be_cut_and_joined_as_the_hub_joins_views() -> None:
    public, private = wire.dumps({"version": 3})[:-1], wire.dumps({"hand": ["AS"]})[1:]
    assert json.loads(public + ", " + private) == {"version": 3, "hand": ["AS"]}


def test_numpy_numbers_are_written_as_numbers() -> None:
    # A hint's counts come out of NumPy (issue 40's switch to orjson once refused them).
    value = {"expected": np.float64(3.25), "count": np.int64(4), "share": np.float32(0.5)}
    assert json.loads(wire.dumps(value)) == {"expected": 3.25, "count": 4, "share": 0.5}
