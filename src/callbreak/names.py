"""The one check of a name a person types: a room's seat, a match's player, a scoresheet's
players (and the profiles to come), so that what one page takes another never refuses.

A name is kept as it was typed, in Unicode's composed form (NFC), with its ends trimmed and each
run of spaces inside made one space; it is refused, never cut or quietly changed, when it is not
text, has no visible character, holds a control, format or direction character, or is longer
than :data:`MAX_NAME` characters (code points, counted after NFC).

The zero-width joiner and non-joiner are kept where they belong to the text around them: between
two visible characters, as in the Devanagari conjunct ``क्‍ष`` or the emoji family ``👨‍👩‍👧``; so
are the tag characters of an emoji flag (``🏴`` followed by tags and the cancel tag). Anywhere
else they only hide something, and are refused with the others, as are the code points that
will never show (noncharacters, and those reserved as default-ignorable).

>>> check_name("  Ann   Lee ")
'Ann Lee'
>>> check_name("क्\u200dष") == "क्\u200dष"
True
>>> check_name("Ann\u202e")
Traceback (most recent call last):
...
callbreak.errors.InvalidNameError: a name may not hold the control or format character U+202E
"""

from __future__ import annotations

import unicodedata

from callbreak.errors import InvalidNameError

__all__ = ["MAX_NAME", "check_name"]

MAX_NAME = 24
"""The most characters a name may have (after NFC)."""

JOINERS = frozenset("\u200c\u200d")
"""Zero-width non-joiner and joiner: kept between visible characters (scripts, emoji)."""
BLACK_FLAG = "\U0001f3f4"
"""The base of an emoji tag sequence (a subdivision's flag)."""
TAGS = range(0xE0020, 0xE0080)
"""The tag characters, kept only in a flag's sequence: after ``BLACK_FLAG`` or another tag, and
ended by ``CANCEL_TAG``."""
CANCEL_TAG = 0xE007F
IGNORABLE = (
    range(0x2065, 0x2066),
    range(0xFFF0, 0xFFF9),
    range(0xE0000, 0xE0001),
    range(0xE0002, 0xE0020),
    range(0xE0080, 0xE0100),
    range(0xE01F0, 0xE1000),
)
"""Code points not assigned yet but reserved as default-ignorable (Unicode's
DerivedCoreProperties): whatever they become, a browser shows nothing for them, so they are not
taken for characters newer than this Python's tables, which a newer browser may show."""
BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that show nothing (the Hangul fillers, the blank Braille pattern): a name
of them alone is as invisible as one of spaces."""


def check_name(text: object, most: int = MAX_NAME) -> str:
    """``text`` as a name: NFC, its ends trimmed, inner runs of spaces made one; an
    :class:`~callbreak.errors.InvalidNameError` when it is not text, shows nothing, holds a
    control, format or direction character (or a lone surrogate), or is over ``most``
    characters."""
    if not isinstance(text, str):
        raise InvalidNameError("a name is text", problem="not_text")
    for char in text:
        # Before NFC: a lone surrogate is no character, and cannot even be stored as UTF-8.
        if unicodedata.category(char) == "Cs":
            raise _control(char)
    # Only the ends lose their white space (a pasted newline); a tab or a line break inside is
    # refused below with the other controls, and then only spaces are left to make one.
    name = unicodedata.normalize("NFC", text).strip()
    if not any(_visible(char) for char in name):
        raise InvalidNameError("a name needs at least one visible character", problem="empty")
    for index, char in enumerate(name):
        if not _allowed(name, index):
            raise _control(char)
    name = " ".join(name.split())
    if len(name) > most:
        raise InvalidNameError(f"a name has at most {most} characters", problem="long", max=most)
    return name


def _visible(char: str) -> bool:
    """Whether ``char`` shows something of its own: a letter, number, punctuation or symbol
    (or a character newer than this Python's tables, which a newer browser may well show)."""
    if char in BLANK:
        return False
    kind = unicodedata.category(char)
    return kind[0] in "LNPS" or kind == "Co" or (kind == "Cn" and not _hidden(char))


def _hidden(char: str) -> bool:
    """Whether an unassigned ``char`` will never show: a noncharacter (U+FDD0-U+FDEF and the
    last two of every plane) or a code point reserved as default-ignorable."""
    point = ord(char)
    noncharacter = 0xFDD0 <= point <= 0xFDEF or point & 0xFFFE == 0xFFFE
    return noncharacter or any(point in block for block in IGNORABLE)


def _allowed(name: str, index: int) -> bool:
    char = name[index]
    kind = unicodedata.category(char)
    if kind in ("Cc", "Cs", "Zl", "Zp") or (kind == "Cn" and _hidden(char)):
        return False
    if kind != "Cf":
        return True
    before = name[index - 1] if index > 0 else ""
    if char in JOINERS:
        after = name[index + 1] if index + 1 < len(name) else ""
        return _joins(before) and _joins(after)
    if ord(char) in TAGS:
        # A flag's sequence: the black flag, tags, the cancel tag. Tags left open show nothing
        # and would carry text nobody sees.
        after = name[index + 1] if index + 1 < len(name) else ""
        tag_before = before != "" and ord(before) in TAGS and ord(before) != CANCEL_TAG
        if ord(char) == CANCEL_TAG:
            return tag_before
        return (before == BLACK_FLAG or tag_before) and after != "" and ord(after) in TAGS
    # Every other format character (the direction marks, embeddings, overrides and isolates,
    # the zero-width space, the word joiner, the soft hyphen, the byte order mark, ...) shows
    # nothing or turns the text around it.
    return False


def _joins(char: str) -> bool:
    """Whether a joiner beside ``char`` can belong to the text: a visible character or a mark
    (a virama, an emoji's variation selector), never a space, an end or another joiner."""
    return char != "" and (_visible(char) or unicodedata.category(char)[0] == "M")


def _control(char: str) -> InvalidNameError:
    point = f"U+{ord(char):04X}"
    return InvalidNameError(
        f"a name may not hold the control or format character {point}",
        problem="control",
        char=point,
    )
