"""keyvrm-dashboard: the Horizon plugin of KeyVRM (Admin -> KeyVRM)."""
