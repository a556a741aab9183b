"""Copies a tfm spec with a model name that breaks naive C emission.

    odd-name.py SPEC OUT.json OUT.c

The name holds a double quote, backslashes, a newline, a tab, a comment
closer and opener, a trigraph (??/ is a backslash in strict C modes) and a
control byte. OUT.c prints TFM_MODEL_NAME; the expected bytes are the name.
"""
import json
import sys

NAME = 'odd "name" \\ */ /* ??/ x\ny\tz \x01 end\\'

spec = json.load(open(sys.argv[1]))
spec["name"] = NAME
with open(sys.argv[2], "w") as f:
    json.dump(spec, f)
with open(sys.argv[3], "w") as f:
    f.write('#include <stdio.h>\n#include <string.h>\n#include "odd.h"\n'
            'int main(void) {\n'
            '  static const char expected[] = {%s, 0};\n'
            '  if (strcmp(TFM_MODEL_NAME, expected) != 0) {\n'
            '    printf("TFM_MODEL_NAME differs: [%%s]\\n", TFM_MODEL_NAME);\n'
            '    return 1;\n'
            '  }\n'
            '  printf("name ok, %%d bytes\\n", (int)strlen(TFM_MODEL_NAME));\n'
            '  return 0;\n'
            '}\n' % ", ".join(str(b) for b in NAME.encode()))
