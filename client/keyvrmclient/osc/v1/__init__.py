"""`openstack keyvrm` commands of API v1, one module per resource."""
