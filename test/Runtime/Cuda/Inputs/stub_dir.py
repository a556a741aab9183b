"""Makes FOLDER, holding libcuda.so.1 -> STUB when a stub path is given.

  stub_dir.py FOLDER [STUB]

With FOLDER first on LD_LIBRARY_PATH, dlopen("libcuda.so.1") finds the CUDA
toolkit's stub library before any installed driver. Without STUB the folder
stays empty and changes nothing.
"""
import os
import shutil
import sys

folder = sys.argv[1]
shutil.rmtree(folder, ignore_errors=True)
os.makedirs(folder)
if len(sys.argv) > 2 and sys.argv[2]:
    os.symlink(sys.argv[2], os.path.join(folder, "libcuda.so.1"))
