"""Runs tfm-run on a model library and reports how it ended.

Usage: run_model.py TFM_RUN LIBRARY ARGS...
Prints 'exit N' and then tfm-run's stderr, so that one FileCheck prefix per
machine state (%cuda_state) can check either the refusal on a machine
without a GPU or the success on one.
"""
import subprocess
import sys

r = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(f"exit {r.returncode}")
print(r.stderr, end="")
