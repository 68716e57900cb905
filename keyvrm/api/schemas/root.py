"""Schemas of version discovery."""

from keyvrm.api.schemas import common

VERSION = common.obj({"id": common.STRING, "status": common.STRING, "min_version": common.STRING,
                      "max_version": common.STRING, "links": common.LINKS}, additional=True)
VERSIONS = common.obj({"versions": {"type": "array", "items": VERSION}})
VERSION_DOC = common.obj({"version": VERSION})
OPENAPI = {"type": "object", "required": ["openapi", "paths"]}
