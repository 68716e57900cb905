"""Request handlers, one module per resource; each lists its endpoints in ``ROUTES``."""
