"""The exceptions of the package: one small hierarchy under ``ValueError``.

Messages are meant for people: they quote what was tried, say which rule forbids it and what
would have been allowed.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CallbreakError",
    "IllegalCallError",
    "IllegalPlayError",
    "InvalidCardError",
    "InvalidNameError",
    "InvalidRulesError",
    "RecordError",
    "SpecError",
]


class CallbreakError(ValueError):
    """Base class of every error this package raises on purpose."""


class InvalidCardError(CallbreakError):
    """Text or a number that does not name a card."""


class InvalidNameError(CallbreakError):
    """A name a person typed that cannot be one (``names.check_name``): ``problem`` says why
    ("not_text", "empty", "long" or "control"), ``blanks`` its blanks (``max``; ``char``, the
    character refused, as ``U+202E``), for a front end to word in its own language."""

    def __init__(self, message: str, *, problem: str, **args: Any) -> None:
        super().__init__(message)
        self.problem = problem
        self.blanks: dict[str, Any] = args


class InvalidRulesError(CallbreakError):
    """An unknown profile, an unknown option, or an option value out of range."""


class IllegalActionError(CallbreakError):
    """An action the rules do not allow at this point of the game.

    ``reason`` is the duty in words; ``legal`` lists what would have been allowed; ``why`` is the
    reason as data when the engine gives it (a ``game.Refusal`` or a ``rules.Duty``: a kind
    and its blanks, for a front end to word in its own language).
    """

    def __init__(
        self,
        message: str,
        *,
        reason: str = "",
        legal: tuple[object, ...] = (),
        why: object = None,
    ) -> None:
        super().__init__(message)
        self.reason = reason or message
        self.legal = legal
        self.why = why


class IllegalPlayError(IllegalActionError):
    """A card the rules forbid here, a card not in hand, or a play out of turn."""


class IllegalCallError(IllegalActionError):
    """A call out of range or out of turn."""


class SpecError(CallbreakError):
    """Text that is not of the form ``name`` or ``name(key=value, ...)``."""


class RecordError(CallbreakError):
    """A game record that cannot be read: bad JSON, a bad shape, unknown card or profile."""
