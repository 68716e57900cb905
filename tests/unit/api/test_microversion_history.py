"""The microversions the API serves follow each other, and each is described in the history."""

import os
import re

from keyvrm.api import microversion

HISTORY = os.path.join(os.path.dirname(microversion.__file__), "rest_api_version_history.rst")


def test_versions_are_consecutive_minor_versions_of_v1_from_1_0():
    versions = [microversion.parse(v) for v in microversion.VERSIONS]
    assert versions == [microversion.Version(1, minor) for minor in range(len(versions))]


def test_every_version_and_only_those_has_a_section_in_the_history():
    with open(HISTORY, encoding="utf-8") as handle:
        text = handle.read()
    sections = re.findall(r"^(\d+\.\d+) - .+\n-{3,}$", text, flags=re.MULTILINE)
    assert sections == list(microversion.VERSIONS)
