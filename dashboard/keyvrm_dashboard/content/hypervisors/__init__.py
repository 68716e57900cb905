"""Admin -> KeyVRM -> Hypervisors: KeyVRM's host states (since, why) and Return to service."""
