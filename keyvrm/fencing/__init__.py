"""Real fencing drivers (IPMI, Redfish, Ceph, Nova) and the HA fencing step."""
