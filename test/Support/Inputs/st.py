"""Writes a raw safetensors image for the tests, valid or not.

  st.py OUT HEADER [DATA_BYTES] [--length N]

HEADER is written verbatim as the JSON header (so tests can corrupt it),
followed by DATA_BYTES bytes of data (default 0) counting up from 0.
--length overrides the 8-byte header length field.
"""
import struct
import sys

args = sys.argv[1:]
length = None
if "--length" in args:
    i = args.index("--length")
    length = int(args[i + 1])
    del args[i : i + 2]
out, header = args[0], args[1].encode()
data = bytes(i % 256 for i in range(int(args[2]) if len(args) > 2 else 0))
with open(out, "wb") as f:
    f.write(struct.pack("<Q", len(header) if length is None else length))
    f.write(header)
    f.write(data)
