"""Metrics drivers: hypervisor and VM load from a Prometheus-compatible TSDB."""
