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

"""Sphinx directive ``keyvrm-api-reference``: the API reference, rendered from the OpenAPI document.

The document is ``keyvrm.api.openapi.document()``, the one ``GET /v1/openapi.json``
serves, so the reference cannot drift from the routes. Every operation becomes a section
(method and path, summary, policy rule, parameters, request body fields, responses),
grouped by resource (the path's first segment after ``/v1``). An operation without a
summary stops the build.
"""

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils import statemachine
from sphinx.errors import ExtensionError
from sphinx.util.nodes import nested_parse_with_titles

_METHOD_ORDER = ("get", "post", "put", "patch", "delete")


def resource_of(path):
    """The group a path belongs to: its first segment after /v1, or ``versions`` for / and /v1."""
    parts = [p for p in path.split("/") if p]
    if len(parts) < 2:
        return "versions"
    return parts[1]


def _value_text(value):
    """A JSON value as a literal: ``null``, ``""`` or the value itself."""
    if value is None:
        return "``null``"
    return "``%s``" % value if value != "" else '``""``'


def type_text(schema):
    """One line saying what a JSON schema accepts: type, allowed values, bounds, length."""
    kind = schema.get("type", "object" if "properties" in schema else "any")
    text = " or ".join(kind) if isinstance(kind, list) else kind
    if "items" in schema and "type" in schema["items"]:
        text += " of " + type_text(schema["items"])
    notes = []
    if "enum" in schema:
        notes.append("one of " + ", ".join(_value_text(v) for v in schema["enum"]))
    for key, word in (("minimum", "min"), ("maximum", "max"), ("minLength", "min length"),
                      ("maxLength", "max length"), ("minItems", "min items"),
                      ("maxItems", "max items"), ("format", "format"), ("pattern", "pattern")):
        if key in schema:
            notes.append("%s ``%s``" % (word, schema[key]))
    return text + (" (%s)" % "; ".join(notes) if notes else "")


def schema_fields(schema, prefix=""):
    """(dotted name, type text, required, description) for each property, nested ones after their parent."""
    rows = []
    required = set(schema.get("required", ()))
    for name, sub in schema.get("properties", {}).items():
        full = prefix + name
        rows.append((full, type_text(sub), name in required, sub.get("description", "")))
        rows += schema_fields(sub, full + ".")
        if "properties" in sub.get("items", {}):
            rows += schema_fields(sub["items"], full + "[].")
    return rows


def _cell(text):
    return str(text).replace("\n", " ") or "\\-"


def _table(headers, rows, widths):
    lines = [".. list-table::", "   :header-rows: 1", "   :widths: " + " ".join(map(str, widths)), ""]
    for row in [headers] + rows:
        lines.append("   * - " + _cell(row[0]))
        lines += ["     - " + _cell(cell) for cell in row[1:]]
    return lines + [""]


def operation_lines(method, path, operation, underline):
    """reST of one operation; an operation without a summary is refused (ExtensionError)."""
    summary = operation.get("summary", "").strip()
    if not summary:
        raise ExtensionError("API reference: %s %s has no summary" % (method.upper(), path))
    title = "%s %s" % (method.upper(), path)
    lines = [title, underline * len(title), "", summary, ""]
    if operation.get("description"):
        lines += [operation["description"], ""]
    if operation.get("security") == []:
        lines += ["No authentication required.", ""]
    params = operation.get("parameters", [])
    if params:
        lines += ["**Parameters**", ""]
        lines += _table(("Name", "In", "Type", "Required", "Description"),
                        [(p["name"], p["in"], type_text(p.get("schema", {})),
                          "yes" if p.get("required") else "no", p.get("description", ""))
                         for p in params], (15, 8, 35, 8, 34))
    body = operation.get("requestBody")
    if body:
        schema = body["content"]["application/json"]["schema"]
        lines += ["**Request body** (JSON, %s)" % ("required" if body.get("required") else "optional"), ""]
        fields = schema_fields(schema)
        if fields:
            lines += _table(("Field", "Type", "Required", "Description"),
                            [(name, kind, "yes" if req else "no", desc)
                             for name, kind, req, desc in fields], (25, 45, 8, 22))
        else:
            lines += ["An empty object ``{}`` or no body; no field is accepted.", ""]
    lines += ["**Responses**", ""]
    rows = []
    for status, response in sorted(operation["responses"].items()):
        body_text = "JSON" if "content" in response else "\\-"
        schema = response.get("content", {}).get("application/json", {}).get("schema", {})
        if schema.get("$ref") == "#/components/schemas/Error":
            body_text = "Error"
        elif "properties" in schema:
            body_text = "JSON: " + ", ".join("``%s``" % k for k in schema["properties"])
        headers = ", ".join("``%s``" % h for h in response.get("headers", {}))
        rows.append((status, response["description"], body_text, headers))
    lines += _table(("Status", "Meaning", "Body", "Headers"), rows, (8, 52, 28, 12))
    return lines


def reference_lines(document):
    """reST of the whole reference: one section per resource, one subsection per operation."""
    groups = {}
    for path, operations in document["paths"].items():
        for method in sorted(operations, key=_METHOD_ORDER.index):
            groups.setdefault(resource_of(path), []).append((method, path, operations[method]))
    lines = []
    for resource, operations in groups.items():
        lines += [resource, "-" * len(resource), ""]
        for method, path, operation in operations:
            lines += operation_lines(method, path, operation, "~")
    return lines


class APIReferenceDirective(Directive):
    """``.. keyvrm-api-reference::`` renders keyvrm.api.openapi.document() in place."""

    has_content = False

    def run(self):
        from keyvrm.api import openapi
        lines = reference_lines(openapi.document())
        source = self.state_machine.input_lines.source(self.lineno - self.state_machine.input_offset - 1)
        content = statemachine.StringList(lines, source=source)
        container = nodes.section()
        container.document = self.state.document
        nested_parse_with_titles(self.state, content, container)
        return container.children


def setup(app):
    app.add_directive("keyvrm-api-reference", APIReferenceDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
