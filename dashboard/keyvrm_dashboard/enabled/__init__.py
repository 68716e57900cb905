"""Horizon's enabled files of KeyVRM: the KeyVRM panel group under Admin and its panels."""
