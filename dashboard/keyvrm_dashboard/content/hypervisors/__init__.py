"""Admin -> KeyVRM -> Hypervisors: KeyVRM's host states (since, why), Drain and Return to service."""
