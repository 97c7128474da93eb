#!/usr/bin/env python3
"""Checks the manifests `procflow export --to argo` writes.

Usage: scripts/check-argo-export.py [--manifests DIR] [--binary PATH]

Collects manifests: every one the Argo export tests produce (it runs `swift test --filter
Argo` with PROCFLOW_ARGO_MANIFESTS set, unless --manifests names a directory of them already),
the golden files in Tests/ProcflowTests/Fixtures/argo, and the export, as JSON and as YAML,
of every workflow in workflows/. Then checks that each:

- validates against Argo's own JSON Schema, read from $PROCFLOW_ARGO_SCHEMA or else
  ../shared/argo/schema.json beside the repository (never copied into it); without either,
  one line says the schema check was skipped and why, and the other checks still run;
- loads into the Argo models of the hera-workflows SDK (hera.workflows.models.Workflow);
- as YAML, loads to the same document as the JSON form;
- and that the procflow workflow each pod runs (a base64 `workflow.json` input) conforms to
  workflows/procflow.schema.json.

Installs hera-workflows and jsonschema with pip when they are missing. Prints "ok: NAME" or
each problem; exits 0 if everything passed, 1 otherwise.
"""

import argparse
import base64
import importlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "Tests" / "ProcflowTests" / "Fixtures" / "argo"
WORKFLOWS = ROOT / "workflows"


def ensure_packages():
    """Imports jsonschema, hera and yaml, installing hera-workflows and jsonschema if needed."""
    try:
        importlib.import_module("jsonschema")
        importlib.import_module("hera.workflows.models")
        importlib.import_module("yaml")
        return
    except ImportError:
        pass
    print("installing hera-workflows and jsonschema with pip", flush=True)
    command = [sys.executable, "-m", "pip", "install", "--quiet", "hera-workflows", "jsonschema"]
    if subprocess.run(command).returncode != 0:
        # A system Python that forbids installing into it.
        if subprocess.run(command + ["--user", "--break-system-packages"]).returncode != 0:
            sys.exit("error: cannot install hera-workflows and jsonschema with pip")
    importlib.invalidate_caches()


def schema_path():
    """Argo's schema, or None with the reason it is missing."""
    configured = os.environ.get("PROCFLOW_ARGO_SCHEMA")
    if configured:
        path = Path(configured)
        return (path, None) if path.is_file() else (None, f"$PROCFLOW_ARGO_SCHEMA ({path}) is not a file")
    path = ROOT.parent / "shared" / "argo" / "schema.json"
    if path.is_file():
        return path, None
    return None, f"no $PROCFLOW_ARGO_SCHEMA and no {path}"


def binary():
    """The procflow binary, built if it is not."""
    path = ROOT / ".build" / "debug" / "procflow"
    if not path.exists():
        subprocess.run(["swift", "build", "--product", "procflow"], cwd=ROOT, check=True)
    return path


def test_manifests(directory):
    """Runs the Argo export tests, which save every manifest they check into `directory`."""
    environment = dict(os.environ, PROCFLOW_ARGO_MANIFESTS=str(directory))
    result = subprocess.run(
        ["swift", "test", "--filter", "Argo"], cwd=ROOT, env=environment,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if result.returncode != 0:
        print("error: the Argo export tests failed (swift test --filter Argo)")
        return False
    return True


def collect(manifests_directory, procflow):
    """(name, JSON text, YAML text or None) for every manifest to check."""
    found = []
    for path in sorted(Path(manifests_directory).glob("*.json")):
        found.append((f"test manifest {path.name}", path.read_text(), None))
    found.append(
        ("golden " + str(FIXTURES.relative_to(ROOT)), (FIXTURES / "expected.json").read_text(),
         (FIXTURES / "expected.yaml").read_text()))
    for workflow in sorted(WORKFLOWS.glob("*.json")):
        if workflow.name == "procflow.schema.json":
            continue
        base = [str(procflow), "export", str(workflow), "--to", "argo", "--image", "alpine:3.20"]
        texts = []
        for extra in ([], ["--yaml"]):
            result = subprocess.run(base + extra, capture_output=True, text=True)
            if result.returncode != 0 and refuses_only_services(result.stderr):
                # Argo's DAG cannot hold a process beside the tasks that use it.
                print(f"skipped: {workflow.relative_to(ROOT)}: its service steps cannot be exported")
                texts = None
                break
            if result.returncode != 0:
                print(f"error: {workflow.relative_to(ROOT)}: export failed: {result.stderr.strip()}")
                texts = None
                break
            texts.append(result.stdout)
        if texts:
            found.append((f"export of {workflow.relative_to(ROOT)}", texts[0], texts[1]))
    return found


def refuses_only_services(stderr):
    """Whether every error of a refused export is about a service step."""
    errors = [line for line in stderr.splitlines() if ": error: " in line]
    return bool(errors) and all("a service is a process" in line for line in errors)


def pod_workflows(document):
    """The procflow workflows the manifest's pods run."""
    for template in document.get("spec", {}).get("templates", []):
        for artifact in template.get("inputs", {}).get("artifacts", []):
            if artifact.get("name") == "workflow" and "raw" in artifact:
                yield template["name"], json.loads(base64.b64decode(artifact["raw"]["data"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifests", help="a directory of manifests the tests saved")
    arguments = parser.parse_args()

    ensure_packages()
    import jsonschema
    import yaml
    from hera.workflows.models import Workflow

    argo_schema, reason = schema_path()
    if argo_schema is None:
        print(f"argo export check: schema check skipped: {reason}")
        argo_validator = None
    else:
        argo_validator = jsonschema.Draft202012Validator(json.loads(argo_schema.read_text()))
    procflow_validator = jsonschema.Draft202012Validator(
        json.loads((WORKFLOWS / "procflow.schema.json").read_text()))

    ok = True
    with tempfile.TemporaryDirectory() as scratch:
        directory = arguments.manifests
        if directory is None:
            directory = scratch
            ok = test_manifests(directory) and ok
        manifests = collect(directory, binary())
    if len(manifests) < 3:
        print("error: too few manifests to check")
        ok = False
    for name, text, yaml_text in manifests:
        problems = []
        document = json.loads(text)
        if argo_validator is not None:
            errors = list(argo_validator.iter_errors(document))
            for error in errors[:5]:
                details = [f"{list(c.absolute_path)}: {c.message[:160]}" for c in (error.context or [])
                           if c.validator != "const" or "kind" not in list(c.absolute_path)]
                problems.append(f"Argo schema: {error.message[:160]} {details[:5]}")
        try:
            Workflow.model_validate(document)
        except Exception as error:  # pydantic's ValidationError, or any other refusal
            problems.append(f"hera models: {str(error)[:600]}")
        if yaml_text is not None and yaml.safe_load(yaml_text) != document:
            problems.append("the YAML form does not load to the same document as the JSON form")
        for template, workflow in pod_workflows(document):
            for error in procflow_validator.iter_errors(workflow):
                problems.append(f"{template}: its procflow workflow: {error.message[:160]}")
        if problems:
            ok = False
            for problem in problems:
                print(f"error: {name}: {problem}")
        else:
            print(f"ok: {name}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
