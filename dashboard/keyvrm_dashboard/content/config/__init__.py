"""Admin -> KeyVRM -> Global configuration: the business config of SPEC section 2 and its audit trail."""
