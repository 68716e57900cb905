"""keyvrm-api: the REST API (WebOb + Routes), one module per resource in handlers/, schemas/."""
