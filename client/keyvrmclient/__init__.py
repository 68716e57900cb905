"""python-keyvrmclient: the KeyVRM v1 REST client (``keyvrmclient.v1``) and ``openstack keyvrm``."""
