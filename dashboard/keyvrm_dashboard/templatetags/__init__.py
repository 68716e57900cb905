"""Template filters of the KeyVRM panels (``{% load keyvrm_time %}``)."""
