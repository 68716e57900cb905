"""Admin -> KeyVRM -> VMs: a VM's lifecycle state and history, and Unlock for admins."""
