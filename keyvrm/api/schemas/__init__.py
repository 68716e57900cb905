"""JSON schemas (draft 2020-12, as OpenAPI 3.1 uses) of requests and responses, one module per resource."""
