"""Target selection shared by the planners: Nova filter emulations, capacity, scoring."""
