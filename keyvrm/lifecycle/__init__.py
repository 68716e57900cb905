"""VM lifecycle discipline: desired vs observed status, the atomic lock, timeouts, history."""
