"""Checks the host target that tfmc wrote into an IR file against Linux
sysfs: its l1_bytes and l2_bytes must be CPU 0's L1 data and L2 cache sizes
(TargetDescription's defaults, 32 KiB and 1 MiB, where sysfs has none).

    python3 host_caches.py IR.mlir
"""
import os
import re
import sys

DEFAULTS = {"l1": 32 * 1024, "l2": 1024 * 1024}


def sysfs_caches():
    found = dict(DEFAULTS)
    root = "/sys/devices/system/cpu/cpu0/cache"
    for i in range(8):
        d = os.path.join(root, f"index{i}")
        try:
            level = open(os.path.join(d, "level")).read().strip()
            kind = open(os.path.join(d, "type")).read().strip()
            size = open(os.path.join(d, "size")).read().strip()
        except OSError:
            break
        scale = {"K": 1024, "M": 1024 * 1024}.get(size[-1:], 1)
        value = int(size.rstrip("KM")) * scale
        if level == "1" and kind in ("Data", "Unified"):
            found["l1"] = value
        elif level == "2":
            found["l2"] = value
    return found


def main():
    ir = open(sys.argv[1]).read()
    m = re.search(r"l1_bytes = (\d+), l2_bytes = (\d+)", ir)
    if not m:
        sys.exit("no #tfm.cpu_target with l1_bytes/l2_bytes in " + sys.argv[1])
    got = {"l1": int(m.group(1)), "l2": int(m.group(2))}
    want = sysfs_caches()
    if got != want:
        sys.exit(f"host target caches {got} != sysfs {want}")
    print(f"host caches match: L1 {got['l1']} L2 {got['l2']}")


if __name__ == "__main__":
    main()
