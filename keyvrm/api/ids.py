"""Integer ids from URLs and markers: anything that is not a positive 32-bit integer names no row."""

import re

INT32_MAX = 2 ** 31 - 1
_ASCII_INTEGER = re.compile(r"-?[0-9]{1,20}")


def ascii_integer(text):
    """``text`` as an int if it is up to 20 ASCII digits (with an optional "-"), else None.

    ``int()`` alone would also read "\\u0663" (ARABIC-INDIC DIGIT THREE), " 3" and "1_0",
    and fail with ValueError beyond 4,300 digits.
    """
    if _ASCII_INTEGER.fullmatch(text) is None:
        return None
    return int(text)


def parse_id(value, error):
    """``value`` as an int id, or raise ``error(value)`` (NotFound for paths, InvalidField for markers)."""
    number = ascii_integer(value)
    if number is None or not 0 < number <= INT32_MAX:
        raise error(value)
    return number
