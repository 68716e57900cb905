"""Snapshot and business-config dataclasses: the data every layer shares (imports no other layer)."""
