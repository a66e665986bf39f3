#!/usr/bin/env python3
"""Validates a JSON document against the subset of JSON Schema (draft 7)
that docs/report-schema.json uses: type, required, properties,
additionalProperties (false), items, enum, minimum, maximum, minItems,
maxItems. No third-party packages (PyPI is not reachable here).

Usage: validate_schema.py SCHEMA DOCUMENT; prints "valid" or the first
error with its JSON path, exit status 0 or 1."""
import json
import sys

TYPES = {
    "object": dict, "array": list, "string": str, "boolean": bool,
    "integer": int, "number": (int, float),
}


def check(schema, value, path):
    t = schema.get("type")
    if t:
        ok = isinstance(value, TYPES[t])
        if t in ("integer", "number") and isinstance(value, bool):
            ok = False
        if t == "integer" and isinstance(value, float):
            ok = value.is_integer()
        if not ok:
            return f"{path}: expected {t}, got {type(value).__name__}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{path}: {value!r} not in {schema['enum']}"
    if "minimum" in schema and value < schema["minimum"]:
        return f"{path}: {value} < minimum {schema['minimum']}"
    if "maximum" in schema and value > schema["maximum"]:
        return f"{path}: {value} > maximum {schema['maximum']}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                return f"{path}: missing required '{key}'"
        props = schema.get("properties", {})
        for key, sub in value.items():
            if key in props:
                err = check(props[key], sub, f"{path}.{key}")
                if err:
                    return err
            elif schema.get("additionalProperties") is False:
                return f"{path}: unexpected property '{key}'"
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            return f"{path}: fewer than {schema['minItems']} items"
        if len(value) > schema.get("maxItems", len(value)):
            return f"{path}: more than {schema['maxItems']} items"
        for i, item in enumerate(value):
            err = check(schema.get("items", {}), item, f"{path}[{i}]")
            if err:
                return err
    return None


def main():
    schema = json.load(open(sys.argv[1]))
    doc = json.load(open(sys.argv[2]))
    err = check(schema, doc, "$")
    print(err if err else "valid")
    return 1 if err else 0


if __name__ == "__main__":
    sys.exit(main())
