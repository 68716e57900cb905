# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""Sphinx configuration of KeyVRM's documentation (tox -e docs)."""

import os
import sys

# The config generator imports oslo.messaging, whose futurist would import eventlet merely
# because oslo.service installs it; mark it absent, as KeyVRM's commands do (keyvrm.cmd),
# and import keyvrm so oslo.service is told to use its threading backend before the
# generator's namespaces ask for one.
sys.modules.setdefault("eventlet", None)
import keyvrm  # noqa: E402,F401

# doc/source/_exts: the API reference directive.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '_exts'))

# -- General configuration ---------------------------------------------------

extensions = [
    'openstackdocstheme',
    'oslo_config.sphinxext',
    'oslo_config.sphinxconfiggen',
    'oslo_policy.sphinxext',
    'oslo_policy.sphinxpolicygen',
    'keyvrm_api_reference',
]

# oslo_config.sphinxconfiggen: the sample config, generated at build time from the
# same generator file as `tox -e genconfig` (written to _static/keyvrm.conf.sample).
config_generator_config_file = '../../etc/keyvrm/keyvrm-config-generator.conf'
sample_config_basename = '_static/keyvrm'

# oslo_policy.sphinxpolicygen: the sample policy, as `tox -e genpolicy` writes it
# (written to _static/keyvrm.policy.yaml.sample).
policy_generator_config_file = '../../etc/keyvrm/keyvrm-policy-generator.conf'
sample_policy_basename = '_static/keyvrm'

master_doc = 'index'
project = 'KeyVRM'
copyright = '2026, KeyVRM developers'

exclude_patterns = ['_build']
pygments_style = 'native'

# -- Options for HTML output -------------------------------------------------

html_theme = 'openstackdocs'
html_static_path = ['_static']

# -- openstackdocstheme ------------------------------------------------------

openstackdocs_repo_name = 'openstack/keyvrm'
openstackdocs_bug_project = 'keyvrm'
openstackdocs_bug_tag = 'doc'
openstackdocs_auto_name = False
