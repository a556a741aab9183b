"""Runs every fuzz harness briefly on its seed corpus (CI's share of the
fuzzing; scripts/fuzz.sh runs a campaign).

Usage: run_fuzzers.py BIN_DIR WORK_DIR RUNS
Each harness runs RUNS inputs, mutated from the seeds of
scripts/fuzz_seeds.py, and must finish without a crash, leak or timeout.
Where the harnesses are not built (no libFuzzer), says so and passes.
"""
import os
import subprocess
import sys

HARNESSES = ("safetensors", "npy", "manifest", "spec", "hf-config",
             "tfm-ir", "c-abi")


def main():
    bin_dir, work, runs = sys.argv[1], sys.argv[2], sys.argv[3]
    here = os.path.dirname(os.path.abspath(__file__))
    seeds = os.path.join(here, "..", "..", "..", "scripts", "fuzz_seeds.py")
    missing = [h for h in HARNESSES
               if not os.access(os.path.join(bin_dir, "tfm-fuzz-" + h), os.X_OK)]
    if missing:
        print("fuzz harnesses not built: " + ", ".join(missing))
        return 0
    failed = 0
    for h in HARNESSES:
        corpus = os.path.join(work, h)
        os.makedirs(corpus, exist_ok=True)
        subprocess.run([sys.executable, seeds, h, corpus], check=True)
        r = subprocess.run(
            [os.path.join(bin_dir, "tfm-fuzz-" + h), corpus, "-runs=" + runs,
             "-seed=1", "-timeout=10", "-rss_limit_mb=2048",
             "-artifact_prefix=" + os.path.join(work, h + "-")],
            capture_output=True, text=True)
        if r.returncode != 0:
            failed += 1
            print("FAIL %s: exit %d\n%s" % (h, r.returncode, r.stderr[-4000:]))
        else:
            print("ok %s: %s runs" % (h, runs))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
