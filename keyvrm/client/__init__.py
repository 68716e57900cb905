"""Python client of the KeyVRM REST API (used by the `openstack keyvrm` CLI and Horizon)."""
