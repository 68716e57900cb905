"""`openstack keyvrm ...`: the python-openstackclient plugin (osc-lib)."""
