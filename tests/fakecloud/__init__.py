"""A fake OpenStack region made of real Nova and Placement code, served over loopback HTTP.

``server`` runs in its own process (Nova's eventlet patching stays out of the test
process); ``client`` starts it, reads the endpoints it publishes and drives its control
endpoint. Needs the ``nova`` and ``openstack-placement`` packages (tox env ``nova``).
"""
