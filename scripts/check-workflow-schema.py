#!/usr/bin/env python3
"""Checks workflows/procflow.schema.json and validates workflow files against it.

Usage: scripts/check-workflow-schema.py [FILE ...]

Checks that the schema is a valid JSON Schema (draft 2020-12), then validates each FILE, or
by default every workflows/*.json except the schema itself, printing "ok: PATH" or each error
with its JSON Pointer. Exits 0 if everything is valid, 1 if anything is not, 2 if the schema
itself is unusable. Needs the `jsonschema` package; never uses the network.

A schema checks only the shape of a workflow; `procflow validate FILE` also checks ids,
references, wiring, cycles and variables.
"""

import json
import sys
from pathlib import Path

try:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
except ImportError:
    sys.exit("error: the jsonschema package is needed: python3 -m pip install jsonschema")

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / "workflows"
SCHEMA = WORKFLOWS / "procflow.schema.json"


def pointer(path):
    """A JSON Pointer for a jsonschema error path."""
    return "".join("/" + str(token).replace("~", "~0").replace("/", "~1") for token in path)


def short(text, limit=160):
    return text if len(text) <= limit else text[: limit - 1] + "…"


def required_alternatives(error):
    """For a oneOf/anyOf whose alternatives are all {"required": [name]}: the names."""
    alternatives = error.validator_value
    if error.validator not in ("oneOf", "anyOf") or not isinstance(alternatives, list):
        return None
    if not all(isinstance(a, dict) and list(a) == ["required"] for a in alternatives):
        return None
    return [name for alternative in alternatives for name in alternative["required"]]


def message(error):
    """The error's message, in the schema's own words where it has some."""
    names = required_alternatives(error)
    if names is not None and isinstance(error.instance, dict):
        quoted = ", ".join(f'"{name}"' for name in names)
        present = [name for name in names if name in error.instance]
        if not present:
            return f"needs one of {quoted}"
        return f"give only one of {', '.join(repr(name) for name in present)}"
    if error.validator == "not" and isinstance(error.schema, dict):
        if "errorMessage" in error.schema:
            return error.schema["errorMessage"]
    if error.validator == "pattern" and isinstance(error.schema, dict):
        if "patternErrorMessage" in error.schema:
            return f"{short(repr(error.instance), 60)}: {error.schema['patternErrorMessage']}"
    return short(error.message)


def describe(error):
    """One line per problem; for a failed oneOf/anyOf, also the closest alternative's."""
    lines = [f"{pointer(error.absolute_path) or '(root)'}: {message(error)}"]
    if error.context and required_alternatives(error) is None:
        # Group the sub-errors by alternative; show the alternative that got furthest into
        # the value, or else the one with the fewest problems.
        by_alternative = {}
        for sub in error.context:
            by_alternative.setdefault(sub.schema_path[0], []).append(sub)
        closest = max(
            by_alternative.values(),
            key=lambda subs: (max(len(sub.absolute_path) for sub in subs), -len(subs)),
        )
        for sub in closest:
            lines.extend("  " + line for line in describe(sub))
    return lines


def relevant(errors):
    """The errors in document order, less those about a value whose type is already wrong."""
    errors = list(errors)
    mistyped = {tuple(e.absolute_path) for e in errors if e.validator == "type"}
    kept = [
        e for e in errors if e.validator == "type" or tuple(e.absolute_path) not in mistyped
    ]
    return sorted(kept, key=lambda e: [str(token) for token in e.absolute_path])


def load_json(path):
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def main(arguments):
    try:
        schema = load_json(SCHEMA)
        Draft202012Validator.check_schema(schema)
    except (OSError, ValueError) as error:
        print(f"error: {SCHEMA}: {error}", file=sys.stderr)
        return 2
    except SchemaError as error:
        print(
            f"error: {SCHEMA}: not a valid 2020-12 schema at "
            f"{pointer(error.absolute_path) or '(root)'}: {error.message}",
            file=sys.stderr,
        )
        return 2
    # The schema's $refs are all local ("#/$defs/..."), so nothing is ever fetched.
    validator = Draft202012Validator(schema)

    if arguments:
        files = [Path(argument) for argument in arguments]
    else:
        files = sorted(path for path in WORKFLOWS.glob("*.json") if path.resolve() != SCHEMA)
        if not files:
            print(f"schema ok: {SCHEMA} (no workflow files in {WORKFLOWS})")
            return 0

    failed = False
    for path in files:
        try:
            instance = load_json(path)
        except (OSError, ValueError) as error:
            print(f"error: {path}: {error}")
            failed = True
            continue
        errors = relevant(validator.iter_errors(instance))
        if not errors:
            print(f"ok: {path}")
            continue
        failed = True
        print(f"invalid: {path}: {len(errors)} error{'s' if len(errors) != 1 else ''}")
        for error in errors:
            for line in describe(error):
                print(f"  {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
