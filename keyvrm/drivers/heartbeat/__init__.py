"""Heartbeat drivers: the last heartbeat each hypervisor wrote."""
