"""Adapters to the world outside KeyVRM: cloud, metrics, heartbeat and fencing drivers."""
