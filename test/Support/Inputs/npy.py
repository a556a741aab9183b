"""Writes raw .npy images for the tests, valid or not.

  npy.py OUT DESCR SHAPE VALUES [--version V] [--header TEXT] [--extra N]
         [--fortran]

DESCR is e.g. '<i4' ('<i4', '<i8', '<f4', '>i4' and '<f8' are encodable);
SHAPE is a Python tuple literal such as '(2, 3)'; VALUES is a comma list.
--header replaces the header dict verbatim; --extra appends N junk bytes
(or with a negative N drops bytes).
"""
import struct
import sys

args = sys.argv[1:]
opts = {}
for flag in ("--version", "--header", "--extra"):
    if flag in args:
        i = args.index(flag)
        opts[flag] = args[i + 1]
        del args[i : i + 2]
fortran = "--fortran" in args
if fortran:
    args.remove("--fortran")
out, descr, shape, values = args
vals = [v for v in values.split(",") if v]
fmt = {"<i4": "<i", "<i8": "<q", "<f4": "<f", ">i4": ">i", "<f8": "<d"}[descr]
conv = float if "f" in descr else int
data = b"".join(struct.pack(fmt, conv(v)) for v in vals)
extra = int(opts.get("--extra", "0"))
data = data + b"\0" * extra if extra >= 0 else data[:extra]
header = opts.get(
    "--header",
    "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }"
    % (descr, "True" if fortran else "False", shape),
)
version = int(opts.get("--version", "1"))
prefix = 10 if version == 1 else 12
header += " " * ((64 - (prefix + len(header) + 1) % 64) % 64) + "\n"
with open(out, "wb") as f:
    f.write(b"\x93NUMPY" + bytes([version, 0]))
    f.write(struct.pack("<H" if version == 1 else "<I", len(header)))
    f.write(header.encode())
    f.write(data)
