"""Fencing drivers: BMC power control and Ceph client blocklisting."""
