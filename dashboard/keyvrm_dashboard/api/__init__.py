"""KeyVRM's REST API as the panels call it (keyvrm_dashboard.api.keyvrm)."""
