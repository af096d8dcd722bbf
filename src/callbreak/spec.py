"""The one-string form shared by rules and players: ``name(key=value, ...)``.

>>> parse_spec("classic(deals=10, min_total_calls=10)")
('classic', {'deals': 10, 'min_total_calls': 10})
>>> parse_spec("expert(time=0.5, seed=7)")
('expert', {'time': 0.5, 'seed': 7})
>>> parse_spec(format_spec("expert", {"eps": 1e-05}))
('expert', {'eps': 1e-05})
>>> format_spec("strict", {"deals": None, "clockwise": True})
'strict(deals=open, clockwise=true)'
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from callbreak.errors import SpecError

__all__ = ["format_spec", "format_value", "parse_spec"]

_SPEC = re.compile(r"\s*(?P<name>[A-Za-z_][\w-]*)\s*(?:\((?P<args>[^()]*)\)\s*)?")
_NUMBER = re.compile(r"[+-]?\d+")
# An exponent is accepted because Python writes small and large floats with one (1e-05).
_DECIMAL = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")
_WORD = re.compile(r"[A-Za-z_][\w-]*")


def parse_spec(
    text: str, what: str = "spec", example: str = "'name' or 'name(key=value, other=2)'"
) -> tuple[str, dict[str, object]]:
    """Split ``name(key=value, ...)`` into the name and its typed options.

    Values are integers, decimals, true/false (yes/no, on/off), none/null/open (None) or a
    bare word (kept as text).
    """
    if not isinstance(text, str):
        raise SpecError(f"a {what} must be text, not {text!r}")
    match = _SPEC.fullmatch(text)
    if not match:
        raise SpecError(
            f"cannot read the {what} {text!r}: write a name, optionally with options, "
            f"such as {example}"
        )
    options: dict[str, object] = {}
    arguments = (match["args"] or "").strip()
    if arguments:
        for item in arguments.split(","):
            key, equals, value = item.partition("=")
            key = key.strip()
            if not equals or not _WORD.fullmatch(key):
                raise SpecError(f"cannot read {item.strip()!r} in {text!r}: write name=value")
            if key in options:
                raise SpecError(f"option {key!r} is given twice in {text!r}")
            options[key] = _parse_value(key, value.strip())
    return match["name"], options


MAX_DIGITS = 30
"""Digits a number in a spec may have: any option's value is far shorter."""


def _parse_value(key: str, text: str) -> object:
    lowered = text.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    if lowered in ("none", "null", "open"):
        return None
    if (_NUMBER.fullmatch(text) or _DECIMAL.fullmatch(text)) and len(text) > MAX_DIGITS:
        # Python refuses to read integers of thousands of digits (a ValueError, not ours).
        raise SpecError(f"the value of option {key!r} has more than {MAX_DIGITS} characters")
    if _NUMBER.fullmatch(text):
        return int(text)
    if _DECIMAL.fullmatch(text):
        return float(text)
    if _WORD.fullmatch(text):
        return text
    raise SpecError(f"cannot read the value {text!r} of option {key!r}")


def format_value(value: object) -> str:
    """A value as the one-string form writes it."""
    if value is None:
        return "open"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def format_spec(name: str, options: Mapping[str, object]) -> str:
    """The one-string form of a name and options (just the name when there are none)."""
    if not options:
        return name
    return f"{name}({', '.join(f'{k}={format_value(v)}' for k, v in options.items())})"
