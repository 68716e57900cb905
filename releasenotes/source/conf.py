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

"""Sphinx configuration of KeyVRM's release notes (tox -e releasenotes)."""

# -- General configuration ---------------------------------------------------

extensions = [
    'openstackdocstheme',
    'reno.sphinxext',
]

master_doc = 'index'
project = 'KeyVRM Release Notes'
copyright = '2026, KeyVRM developers'

# Release notes cover every version: no version in their title.
version = ''
release = ''

exclude_patterns = []
pygments_style = 'native'

# -- Options for HTML output -------------------------------------------------

html_theme = 'openstackdocs'

# -- openstackdocstheme ------------------------------------------------------

openstackdocs_repo_name = 'openstack/keyvrm'
openstackdocs_bug_project = 'keyvrm'
openstackdocs_bug_tag = 'releasenotes'
openstackdocs_auto_name = False
