#!/usr/bin/env python3
"""Compares two outputs of printMemrefF32 element by element.

  compare_printed.py EXPECTED ACTUAL [--rtol R]

Both files hold the same sequence of printed memrefs (mlir-runner's output
of the same program lowered two ways). An element passes when
|actual - expected| <= R * max(|actual|, |expected|); the printed values
carry six significant digits, so R below 1e-5 would flag a difference in
the last printed digit. NaN never passes. Prints one line per memref and
exits 1 if any element fails or the two files differ in shapes.
"""

import math
import re
import sys

NUMBER = re.compile(r"-?(?:nan|inf|[0-9]+(?:\.[0-9]*)?(?:e[-+]?[0-9]+)?)")


def parse(path):
    blocks = []
    for line in open(path):
        if line.startswith("Unranked Memref"):
            header = re.sub(r"base@ = 0x[0-9a-f]+ ", "", line.split("data =")[0])
            blocks.append((header.strip(), []))
        elif blocks:
            blocks[-1][1].extend(float(x) for x in NUMBER.findall(line))
    return blocks


def main():
    args = sys.argv[1:]
    rtol = 2e-5
    if "--rtol" in args:
        i = args.index("--rtol")
        rtol = float(args[i + 1])
        del args[i:i + 2]
    expected, actual = parse(args[0]), parse(args[1])
    if len(expected) != len(actual):
        print(f"FAIL: {len(expected)} memrefs expected, {len(actual)} printed")
        return 1
    failed = False
    for k, ((he, ve), (ha, va)) in enumerate(zip(expected, actual)):
        if he != ha or len(ve) != len(va):
            print(f"FAIL: memref {k}: {ha} ({len(va)} values), expected {he} ({len(ve)} values)")
            failed = True
            continue
        worst, at = 0.0, -1
        bad = 0
        for i, (e, a) in enumerate(zip(ve, va)):
            err = abs(a - e)
            ok = not (math.isnan(a) or math.isnan(e)) and err <= rtol * max(abs(a), abs(e))
            if not ok:
                bad += 1
                if at < 0:
                    at = i
            worst = max(worst, err / max(abs(a), abs(e), 1e-30))
        status = "ok" if bad == 0 else f"FAIL: {bad} elements, first at {at}: {va[at]} vs {ve[at]}"
        print(f"memref {k} ({len(va)} values): max rel difference {worst:.1e}: {status}")
        failed |= bad > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
