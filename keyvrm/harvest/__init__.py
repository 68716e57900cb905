"""Harvest: collect the region from its sources into a RegionSnapshot, store it, sync aggregates."""
