#!/usr/bin/env python3
"""Checks .github/ for what actionlint does not know about this project.

Every workflow and dependabot.yml parses as YAML; every workflow sets read-only
`permissions`; every action is pinned to a release (`@v4`) or a commit, never a branch;
every `.ci/run --only NAME` names a stage that `.ci/run --list` prints (a renamed stage
must not drop out of public CI silently); every script a step runs exists in the tree; no
`${{ }}` expression is spliced into a `run:` script (values go through `env:`, so no
input can become shell source). With SCRIPT-DIR, each `run:` script is written there as
a bash file, for shellcheck.

usage: check-workflows.py STAGE-LIST-FILE [SCRIPT-DIR]   (STAGE-LIST-FILE: `.ci/run --list`)
"""

import fnmatch
import glob
import re
import shlex
import sys
from pathlib import Path

import yaml

stages = Path(sys.argv[1]).read_text().splitlines()
script_dir = Path(sys.argv[2]) if len(sys.argv) > 2 else None
errors = []
workflows = sorted(glob.glob(".github/workflows/*.yml") + glob.glob(".github/workflows/*.yaml"))
if not workflows:
    errors.append("no workflow in .github/workflows")


def steps(doc):
    for job_name, job in (doc.get("jobs") or {}).items():
        for step in job.get("steps") or []:
            yield job_name, step


def load(path):
    try:
        return yaml.safe_load(Path(path).read_text())
    except yaml.YAMLError as e:
        errors.append(f"{path}: not valid YAML: {e}")
        return None


for path in workflows:
    doc = load(path)
    if not isinstance(doc, dict) or "jobs" not in doc:
        errors.append(f"{path}: no jobs")
        continue
    # PyYAML reads the key `on` as the boolean True (YAML 1.1).
    if "on" not in doc and True not in doc:
        errors.append(f"{path}: no `on:` trigger")
    if doc.get("permissions") != {"contents": "read"}:
        errors.append(f"{path}: top-level permissions must be `contents: read`, not {doc.get('permissions')!r}")
    for n, (job_name, step) in enumerate(steps(doc)):
        if "${{" in (step.get("run") or ""):
            errors.append(f"{path}: job {job_name}: a `run:` script contains ${{{{ }}}}; pass the value through env:")
        elif script_dir and step.get("run"):
            name = f"{Path(path).stem}-{job_name}-{n}.sh"
            (script_dir / name).write_text("#!/usr/bin/env bash\nset -eo pipefail\n" + step["run"])
        uses = step.get("uses")
        if uses and not uses.startswith("./"):
            ref = uses.partition("@")[2]
            if not re.fullmatch(r"v\d+(\.\d+){0,2}|[0-9a-f]{40}", ref):
                errors.append(f"{path}: job {job_name}: `{uses}` is not pinned to a release or a commit")
        run = step.get("run") or ""
        for line in run.splitlines():
            # `.ci/run --only NAME`: NAME must be a stage (globs match like .ci/run's).
            if ".ci/run" in line and "${{" not in line:
                words = shlex.split(line, comments=True)
                for i, word in enumerate(words):
                    if word == "--only" and i + 1 < len(words):
                        name = words[i + 1]
                        if "$" not in name and not any(fnmatch.fnmatchcase(s, name) for s in stages):
                            errors.append(f"{path}: job {job_name}: no .ci/run stage matches {name!r}")
            for script in re.findall(r"(?<![\w./-])((?:scripts|fuzz|\.ci|benches/scripts|chacha-backends/scripts)/[\w./-]+)", line):
                if not Path(script).exists():
                    errors.append(f"{path}: job {job_name}: runs {script}, which is not in the tree")
    # Stage names passed through the environment (`STAGE: clippy` with `--only "$STAGE"`)
    # come from a matrix: check those too.
    for job_name, job in (doc.get("jobs") or {}).items():
        matrix = (job.get("strategy") or {}).get("matrix") or {}
        names = list(matrix.get("stage") or []) + [e["stage"] for e in matrix.get("include") or [] if "stage" in e]
        for name in names:
            if not any(fnmatch.fnmatchcase(s, name) for s in stages):
                errors.append(f"{path}: job {job_name}: matrix stage {name!r} is not a .ci/run stage")

dependabot = Path(".github/dependabot.yml")
if dependabot.exists():
    doc = load(dependabot) or {}
    for update in doc.get("updates") or []:
        if update.get("package-ecosystem") == "cargo":
            manifest = Path(update["directory"].lstrip("/")) / "Cargo.toml"
            if not manifest.exists():
                errors.append(f"{dependabot}: cargo directory {update['directory']} has no Cargo.toml")
else:
    errors.append(f"{dependabot} is missing")

for error in errors:
    print(f"FAIL: {error}", file=sys.stderr)
if errors:
    sys.exit(1)
print(f"{len(workflows)} workflows and dependabot.yml parse; actions pinned; every .ci/run stage and script they name exists")
