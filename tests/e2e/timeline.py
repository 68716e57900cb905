"""What happened when in an end-to-end run, from the records' own timestamps, printed as one timeline."""

import datetime


def when(value) -> datetime.datetime:
    """An aware UTC datetime of an API time (KeyVRM's ISO with zone, Nova's naive UTC), POSIX seconds, a datetime."""
    if isinstance(value, (int, float)):
        return datetime.datetime.fromtimestamp(value, datetime.timezone.utc)
    at = value if isinstance(value, datetime.datetime) else \
        datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return at if at.tzinfo else at.replace(tzinfo=datetime.timezone.utc)


class Timeline:
    """Rows of (time, what) from KeyVRM's DB, Nova's DB and the test's own clock; ``print`` them in time order."""

    def __init__(self):
        self.rows = []
        self.printed = False

    def add(self, at, what):
        """One row; a missing time (None, '') adds nothing."""
        if at:
            self.rows.append((when(at), what))

    def render(self):
        if not self.rows:
            return "(empty)"
        rows = sorted(self.rows, key=lambda row: row[0])
        start = rows[0][0]
        return "\n".join("%+8.2f s  %s  %s" % ((at - start).total_seconds(), at.strftime("%H:%M:%S.%f")[:-3], what)
                         for at, what in rows)

    def print(self, title):
        print("\n--- %s (from the first row; UTC) ---\n%s" % (title, self.render()))
        self.printed = True
