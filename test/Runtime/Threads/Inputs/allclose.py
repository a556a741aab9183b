"""allclose.py A B TOL: two float32 .npy files of one shape agree within TOL
(absolute + relative to |B|); prints the largest difference."""
import ast
import struct
import sys


def load(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", path
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode())
    body = data[10 + hlen:]
    return header["shape"], struct.unpack("<%df" % (len(body) // 4), body)


(sa, a), (sb, b) = load(sys.argv[1]), load(sys.argv[2])
tol = float(sys.argv[3])
if sa != sb:
    sys.exit("shapes differ: %s vs %s" % (sa, sb))
worst = max(abs(x - y) / (1 + abs(y)) for x, y in zip(a, b))
print("max difference %.3g" % worst)
if not worst <= tol:
    sys.exit("difference %.3g above %g" % (worst, tol))
print("close %d" % len(a))
