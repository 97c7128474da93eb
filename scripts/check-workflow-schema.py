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


def describe(error):
    """One line per problem; for oneOf/anyOf failures, the closest alternative's problems."""
    lines = [f"{pointer(error.absolute_path) or '(root)'}: {short(error.message)}"]
    if error.context and error.validator in ("oneOf", "anyOf"):
        # Group sub-errors by alternative and show the one that got furthest.
        by_branch = {}
        for sub in error.context:
            by_branch.setdefault(sub.schema_path[0], []).append(sub)
        deepest = max(
            by_branch.values(), key=lambda subs: max(len(sub.absolute_path) for sub in subs)
        )
        if any(len(sub.absolute_path) > len(error.absolute_path) for sub in deepest):
            for sub in deepest:
                lines.extend("  " + line for line in describe(sub))
    return lines


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
        errors = sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
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
