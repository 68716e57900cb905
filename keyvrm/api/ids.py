"""Integer ids from URLs and markers: anything that is not a positive 32-bit integer names no row."""

INT32_MAX = 2 ** 31 - 1


def parse_id(value, error):
    """``value`` as an int id, or raise ``error(value)`` (NotFound for paths, InvalidField for markers)."""
    try:
        number = int(value)
    except ValueError:
        raise error(value) from None
    if not 0 < number <= INT32_MAX:
        raise error(value)
    return number
