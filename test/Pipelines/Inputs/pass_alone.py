"""Runs passes of a tfmc pipeline alone in tfm-opt and compares.

Usage: pass_alone.py TFM_OPT DUMP_DIR PASS...

DUMP_DIR is a `tfmc --dump-ir-dir` folder. For each PASS, every step of the
pipeline that runs it is replayed: tfm-opt runs the pass alone, without any
option (nested under the anchors the pipeline nests it in), on the IR of the
step before, and its output must be the step's own IR, character for
character. Options the pipeline gives a pass therefore must be the pass's
defaults: what a pass decides comes from the module's target and the ops'
configurations, never from the pipeline. Prints one line per step; exits 1
at the first difference.
"""
import os
import re
import subprocess
import sys


def steps(folder):
    """(number, file, pipeline text) of every step in index.txt."""
    out = []
    with open(os.path.join(folder, "index.txt")) as f:
        for line in f:
            if line.startswith("#"):
                continue
            parts = line.split(None, 3)
            if len(parts) == 4 and parts[0].isdigit():
                out.append((int(parts[0]), parts[2], parts[3].strip()))
    return out


def without_options(text):
    """`func.func(tfm-x{a=1 b=2})` -> `func.func(tfm-x)`."""
    out, depth = [], 0
    for c in text:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0:
            out.append(c)
    return "".join(out)


def main():
    tfm_opt, folder, *passes = sys.argv[1:]
    table = steps(folder)
    files = {n: name for n, name, _ in table}
    status = 0
    for name in passes:
        runs = [(n, text) for n, f, text in table
                if re.sub(r"^\d+-", "", f).rsplit(".", 1)[0] == name]
        if not runs:
            print(f"{name}: not in the pipeline")
            status = 1
            continue
        for n, text in runs:
            before = os.path.join(folder, files[n - 1])
            after = open(os.path.join(folder, files[n])).read()
            pipeline = "builtin.module(" + without_options(text) + ")"
            got = subprocess.run([tfm_opt, before, "--pass-pipeline=" + pipeline],
                                 capture_output=True, text=True)
            if got.returncode != 0:
                print(f"{name} (step {n}): tfm-opt failed:\n{got.stderr}")
                status = 1
            elif got.stdout != after:
                print(f"{name} (step {n}): alone differs from the pipeline")
                status = 1
            else:
                print(f"{name} (step {n}): alone = pipeline")
    return status


if __name__ == "__main__":
    sys.exit(main())
