"""Compares two tfmc --dump-ir-dir folders step by step.

Usage: compare_dumps.py A B LAST_PASS
Prints 'identical through step N (LAST_PASS)' when every step file of A and B
up to and including the first step running LAST_PASS has the same name and
content, else names the first step that differs and exits 1.
"""
import os
import sys


def steps(folder):
    names = sorted(f for f in os.listdir(folder) if f[:2].isdigit())
    return [(f, open(os.path.join(folder, f)).read()) for f in names]


def main():
    a, b, last = sys.argv[1:4]
    sa, sb = steps(a), steps(b)
    for i, ((fa, ta), (fb, tb)) in enumerate(zip(sa, sb)):
        if fa != fb or ta != tb:
            print(f"step {i}: {fa} differs from {fb}")
            return 1
        if fa.split("-", 1)[1].rsplit(".", 1)[0] == last:
            print(f"identical through step {i} ({last})")
            return 0
    print(f"no step runs {last}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
