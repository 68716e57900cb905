"""Console scripts of KeyVRM."""
