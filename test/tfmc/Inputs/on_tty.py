"""Runs a command with stderr on a pseudo-terminal; prints what it wrote
there (carriage returns and erase-line codes as newlines), exits with its
status."""
import os
import pty
import re
import subprocess
import sys

master, slave = pty.openpty()
proc = subprocess.Popen(sys.argv[1:], stderr=slave, stdin=subprocess.DEVNULL)
os.close(slave)
chunks = []
while True:
    try:
        data = os.read(master, 4096)
    except OSError:
        break
    if not data:
        break
    chunks.append(data)
rc = proc.wait()
text = b"".join(chunks).decode("utf-8", "replace")
text = re.sub(r"\r|\x1b\[K", "\n", text)
lines = [line for line in text.split("\n") if line.strip()]
sys.stdout.write("".join(line + "\n" for line in lines))
sys.exit(rc)
