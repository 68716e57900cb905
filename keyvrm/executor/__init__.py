"""The executor: runs recommendations as migrations, journals every step, settles events."""
