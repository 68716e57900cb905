"""KeyVRM: availability and load balancing of an OpenStack region's VMs."""
