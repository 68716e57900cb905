"""Test settings and helpers of the KeyVRM dashboard's view tests."""
