"""The panels of Admin -> KeyVRM, one package each."""
