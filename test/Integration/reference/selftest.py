#!/usr/bin/env python3
# ===- selftest.py - prints tfm_ref primitives on small inputs -----------=== #
#
# Used by the lit tests beside it: `selftest.py CASE` prints the reference's
# results on a hand-sized input, and the .test file checks them against
# values worked out by hand (written in its CHECK lines).
#
# ===----------------------------------------------------------------------=== #

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "scripts"))
import tfm_ref as R  # noqa: E402


def fmt(xs):
    return "[" + ", ".join("%.6f" % v for v in xs) + "]"


def vis_rows(tq, tk, mask, window=None, length=None):
    for i in range(tq):
        row = "".join("x" if R.key_visible(i, j, tq, tk, mask, window, length) else "."
                      for j in range(tk))
        print("%s q%d %s" % (mask, i, row))


def case_softmax():
    print("softmax", fmt(R.softmax_masked([0.0, math.log(3.0)], [True, True])))
    print("masked-one", fmt(R.softmax_masked([5.0, 0.0, math.log(3.0)], [False, True, True])))
    print("all-masked", fmt(R.softmax_masked([1.0, 2.0], [False, False])))
    # One query, two keys, scale 1: scores [0, ln 3], values 1 and 5.
    q, k, v = [[[1.0]]], [[[0.0], [math.log(3.0)]]], [[[1.0], [5.0]]]
    print("attention", fmt(R.attention(q, k, v, 1.0)[0][0]))
    # Padding hides both keys: the row is 0, not NaN.
    print("attention-no-key", fmt(R.attention(q, k, v, 1.0, key_length=0)[0][0]))
    # Causal with Tq = 1, Tk = 2 (decode): the query is position 1, sees both.
    print("attention-decode", fmt(R.attention(q, k, v, 1.0, mask="causal")[0][0]))
    # The bias alone: equal scores (q = 0), bias [0, ln 3] on them gives the
    # same weights [1/4, 3/4]; without the bias the row would be 3.
    qz, kz = [[[0.0]]], [[[0.0], [0.0]]]
    print("attention-bias", fmt(R.attention(qz, kz, v, 1.0, bias=[[[0.0, math.log(3.0)]]])[0][0]))


def case_masks():
    vis_rows(4, 4, "causal")
    vis_rows(2, 5, "causal")                  # offset Tk - Tq = 3
    vis_rows(6, 6, "sliding_window", window=3)
    vis_rows(3, 5, "sliding_window", window=2)
    vis_rows(3, 3, "none", length=2)
    vis_rows(3, 3, "causal", length=0)
    # Hugging Face attention masks (any pattern): left padding, a hole.
    vis_rows(4, 4, "causal", length=[False, False, True, True])
    vis_rows(3, 3, "none", length=[True, False, True])


def case_positions():
    # Hugging Face's default position ids: the index in the padded row; for
    # RoBERTa (padding_idx 1, position_offset 2) one past padding_idx for
    # each token that is not padding, padding_idx for padding.
    m = R.Model()
    print("arange", R.hf_positions(m, [1, 1, 7, 8], None))
    m.position_offset = 2
    print("roberta", R.hf_positions(m, [1, 1, 7, 8], None))
    print("roberta-right", R.hf_positions(m, [5, 7, 8, 1], None))


def case_gqa():
    # Four query heads, two kv heads: every key of kv head g has value g + 1,
    # so each output shows which kv head its query head read.
    q = [[[1.0, 0.0]] for _ in range(4)]
    k = [[[0.5, 0.0], [0.25, 0.0]] for _ in range(2)]
    v = [[[g + 1.0], [g + 1.0]] for g in range(2)]
    print("gqa", fmt([o[0][0] for o in R.attention(q, k, v, 1.0)]))
    print("mqa", fmt([o[0][0] for o in R.attention(q, k[:1], v[:1], 1.0)]))


def case_alibi():
    print("slopes8", fmt(R.alibi_slopes(8)))
    print("slopes12", fmt(R.alibi_slopes(12)))
    # Two keys with equal scores; slope 1, query 0 of Tq = 1, Tk = 2 sits at
    # position 1: biases -1 and 0, so p = [1/(1+e), e/(1+e)].
    q, k, v = [[[0.0]]], [[[0.0], [0.0]]], [[[0.0], [1.0]]]
    print("alibi-attention", fmt(R.attention(q, k, v, 1.0, slopes=[1.0])[0][0]))


def case_rope():
    x = [[1.0, 0.0, 0.0, 1.0]]
    print("rotate_half", fmt(R.rope(x, [1], 10000.0)[0]))
    print("interleaved", fmt(R.rope(x, [1], 10000.0, style="interleaved")[0]))
    print("linear2-at-2", fmt(R.rope(x, [2], 10000.0, scaling=2.0)[0]))
    print("rotary_dim2", fmt(R.rope([[1.0, 0.0, 5.0, 7.0]], [1], 10000.0, rotary_dim=2)[0]))
    print("position0", fmt(R.rope([[1.0, 2.0, 3.0, 4.0]], [0], 10000.0)[0]))


def case_elementwise():
    print("sinusoidal-t1", fmt(R.sinusoidal(1, 4)))
    print("sinusoidal-t0", fmt(R.sinusoidal(0, 4)))
    for name in ("relu", "gelu", "gelu_tanh", "silu", "tanh"):
        f = R.ACTIVATIONS[name]
        print(name, fmt([f(1.0), f(-1.0)]))
    print("layernorm", fmt(R.layer_norm([1.0, 2.0, 3.0, 4.0], [1.0] * 4, None, 0.0)))
    print("layernorm-affine", fmt(R.layer_norm([1.0, 2.0, 3.0, 4.0], [2.0] * 4,
                                               [1.0] * 4, 0.0)))
    print("rmsnorm", fmt(R.rms_norm([1.0, 2.0, 3.0, 4.0], [1.0] * 4, 0.0)))
    print("linear", fmt(R.linear([[1.0, 2.0]], [[1.0, 0.0], [3.0, -1.0]], [0.5, 0.5])[0]))


def case_formats():
    import tempfile
    vals = [1.0, -2.5, 0.1, 65504.0, 1e-8]
    with tempfile.TemporaryDirectory() as d:
        for dt in ("F32", "F16", "BF16"):
            path = os.path.join(d, "w.safetensors")
            R.write_safetensors(path, [("t", [5], vals)], dt)
            shape, got = R.read_safetensors(path)["t"]
            print(dt, shape, " ".join("%.10g" % v for v in got))
        path = os.path.join(d, "a.npy")
        for descr, data in (("<i4", [0, -1, 2147483647]), ("<i8", [0, -1, 2 ** 40]),
                            ("<f4", [0.5, -0.1, 3.0]), ("<f8", [0.5, -0.1, 3.0])):
            R.write_npy(path, [3, 1], data, descr)
            shape, got, d2 = R.read_npy(path)
            print(descr, list(shape), d2, " ".join("%.10g" % v for v in got))


def main():
    cases = {n[5:]: f for n, f in globals().items() if n.startswith("case_")}
    if len(sys.argv) != 2 or sys.argv[1] not in cases:
        sys.exit("usage: selftest.py {%s}" % ",".join(sorted(cases)))
    cases[sys.argv[1]]()


if __name__ == "__main__":
    main()
