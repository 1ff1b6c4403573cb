#!/usr/bin/env python3
"""Adds every Identity Toolkit v1/v2 method the gateway's routing table lacks, from Google's discovery
documents, to proto-json/identitytoolkit/schemas.json.

The table began as the Firebase Auth Emulator's spec (the operations it serves); a method missing from
it had no route at all (404). With every method of the discovery documents routed, one the gateway does
not serve answers the contract's 501 naming it, and its request is still checked against Google's
schema first. The documents are the ones google-api-python-client ships (the test venv's pinned
version), so the table follows what Google's generated client sends. Entries already in the table are
kept as they are; schemas are added only where missing.

    .venv-test/bin/python scripts/discovery-operations.py           # rewrite the table
    .venv-test/bin/python scripts/discovery-operations.py --check   # exit 1 if it would change
"""

import argparse
import json
import pathlib
import sys

import googleapiclient

ROOT = pathlib.Path(__file__).resolve().parent.parent
TABLE = ROOT / "proto-json/identitytoolkit/schemas.json"
DOCUMENTS = pathlib.Path(googleapiclient.__file__).parent / "discovery_cache/documents"
HOST = "identitytoolkit.googleapis.com"
# The discovery documents' flat paths name the project and tenant segments after their collections;
# the gateway's handlers (and the emulator's spec the table began with) call them these.
PATH_PARAMETERS = {"projectsId": "targetProjectId", "tenantsId": "tenantId"}


def methods(resource):
    for method in resource.get("methods", {}).values():
        yield method
    for child in resource.get("resources", {}).values():
        yield from methods(child)


def local_ref(schema):
    """The discovery document's `$ref: Name` as the table spells it, all the way down."""
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if key == "$ref" and isinstance(value, str) and not value.startswith("#"):
                out[key] = f"#/schemas/{value}"
            else:
                out[key] = local_ref(value)
        return out
    if isinstance(schema, list):
        return [local_ref(item) for item in schema]
    return schema


def referenced(schema, found):
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "$ref" and isinstance(value, str):
                found.add(value.split("/")[-1])
            else:
                referenced(value, found)
    elif isinstance(schema, list):
        for item in schema:
            referenced(item, found)


def merged():
    table = json.loads(TABLE.read_text())
    operations, schemas = table["operations"], table["schemas"]
    served = {entry["operationId"] for entry in operations.values()}
    for version in ("v1", "v2"):
        document = json.loads((DOCUMENTS / f"identitytoolkit.{version}.json").read_text())
        standard = sorted(name for name in document["parameters"] if not name.startswith("$"))
        wanted = set()
        for method in methods(document):
            if method["id"] in served:
                continue
            served.add(method["id"])
            path = method.get("flatPath", method["path"])
            for old, new in PATH_PARAMETERS.items():
                path = path.replace("{" + old + "}", "{" + new + "}")
            query = sorted(set(standard) | {
                name for name, parameter in method.get("parameters", {}).items() if parameter["location"] == "query"
            })
            request = method.get("request", {}).get("$ref")
            response = method.get("response", {}).get("$ref")
            operations[f"{method['httpMethod']} /{HOST}/{path}"] = {
                "operationId": method["id"], "requestSchema": request, "responseSchema": response,
                "queryParameters": query,
            }
            wanted |= {name for name in (request, response) if name}
        # Each new operation's messages, and what they reference, where the table has no such schema.
        while wanted:
            name = wanted.pop()
            if name in schemas or name not in document["schemas"]:
                continue
            schema = local_ref(document["schemas"][name])
            schema.pop("id", None)
            schemas[name] = schema
            inner = set()
            referenced(schema, inner)
            wanted |= {child for child in inner if child not in schemas}
    table["source"]["discoveryAdditions"] = (
        "Every other v1/v2 method and the schemas it needs: from the identitytoolkit discovery documents "
        "google-api-python-client ships, added by scripts/discovery-operations.py."
    )
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the table lacks a discovery method")
    arguments = parser.parse_args()
    table = merged()
    text = json.dumps(table, indent=1, ensure_ascii=False) + "\n"
    if arguments.check:
        if json.loads(TABLE.read_text()) != table:
            print("schemas.json lacks discovery methods: run scripts/discovery-operations.py", file=sys.stderr)
            return 1
        return 0
    TABLE.write_text(text)
    print(f"{len(table['operations'])} operations, {len(table['schemas'])} schemas")
    return 0


if __name__ == "__main__":
    sys.exit(main())
