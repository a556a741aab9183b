"""Turns a safetensors file into C source defining the symbols that
`tfmc --embed-weights` emits: tfm_embedded_weights and its size.

  embed.py IN.safetensors OUT.c
"""
import sys

data = open(sys.argv[1], "rb").read()
with open(sys.argv[2], "w") as f:
    f.write("#include <stdint.h>\n")
    f.write("__attribute__((aligned(64))) const unsigned char "
            "tfm_embedded_weights[] = {\n")
    for i in range(0, len(data), 16):
        f.write("  " + ", ".join(str(b) for b in data[i : i + 16]) + ",\n")
    f.write("};\n")
    f.write("const uint64_t tfm_embedded_weights_size = %d;\n" % len(data))
