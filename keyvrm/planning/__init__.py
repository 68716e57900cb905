"""The planners: pure functions from a region snapshot and config to a plan."""
