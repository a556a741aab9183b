"""allclose.py A B TOL: two float32 .npy files of one shape agree within TOL
(absolute + relative to |B|); prints the largest difference. Reads with
scripts/tfm_ref.py."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "scripts"))
import tfm_ref  # noqa: E402

(sa, a, _), (sb, b, _) = (tfm_ref.read_npy(sys.argv[1]),
                          tfm_ref.read_npy(sys.argv[2]))
tol = float(sys.argv[3])
if sa != sb:
    sys.exit("shapes differ: %s vs %s" % (sa, sb))
worst = max(abs(x - y) / (1 + abs(y)) for x, y in zip(a, b))
print("max difference %.3g" % worst)
if not worst <= tol:
    sys.exit("difference %.3g above %g" % (worst, tol))
print("close %d" % len(a))
