"""KeyVRM's driver interfaces (cloud, metrics, heartbeat, fencing) implemented over a simulated region."""
