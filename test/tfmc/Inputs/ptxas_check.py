"""Assembles every .ptx file of a folder with ptxas -v and checks resources.

Usage: ptxas_check.py FOLDER ARCH
Each kernel must assemble with no spill stores or loads and within the
architecture's limits (255 registers per thread, 48 KiB static shared
memory). A stack frame (local memory) is reported by kernel name.
ptxas is looked up on PATH, then in $CUDA_HOME/bin and /usr/local/cuda/bin;
where there is none, the check says so and passes (CI machines may lack the
CUDA toolkit; the PTX text itself is checked by FileCheck elsewhere).
"""
import os
import re
import shutil
import subprocess
import sys


def find_ptxas():
    found = shutil.which("ptxas")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root and os.access(os.path.join(root, "bin", "ptxas"), os.X_OK):
            return os.path.join(root, "bin", "ptxas")
    return None


def main():
    folder, arch = sys.argv[1], sys.argv[2]
    ptxas = find_ptxas()
    files = sorted(f for f in os.listdir(folder) if f.endswith(".ptx"))
    if not files:
        print("no .ptx files")
        return 1
    if not ptxas:
        print(f"ptxas absent: {len(files)} kernels not assembled")
        return 0
    failures, stack = [], []
    for f in files:
        r = subprocess.run([ptxas, f"-arch={arch}", "-v", os.path.join(folder, f),
                            "-o", os.devnull], capture_output=True, text=True)
        out = r.stdout + r.stderr
        if r.returncode != 0:
            failures.append(f"{f}: ptxas failed: {out.strip()}")
            continue
        spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", out)
        if any(int(s) or int(l) for s, l in spills):
            failures.append(f"{f}: spills: {spills}")
        regs = [int(x) for x in re.findall(r"Used (\d+) registers", out)]
        if any(x > 255 for x in regs):
            failures.append(f"{f}: {max(regs)} registers")
        smem = [int(x) for x in re.findall(r"(\d+) bytes smem", out)]
        if any(x > 48 * 1024 for x in smem):
            failures.append(f"{f}: {max(smem)} bytes of static shared memory")
        if re.search(r"[1-9]\d* bytes stack frame", out):
            stack.append(f)
    for line in failures:
        print("FAIL", line)
    print(f"ptxas {arch}: {len(files)} kernels, {len(failures)} failing, "
          f"{len(stack)} with a stack frame{': ' + ', '.join(stack) if stack else ''}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
