"""python -m tfm embed / compile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import tfm
from conftest import Compiled

PYTHON_DIR = str(Path(__file__).resolve().parents[1])


def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    return subprocess.run([sys.executable, "-m", "tfm", *args], capture_output=True,
                          text=True, env=env)


def test_embed_prints_one_line_per_sentence(encoder: tfm.Encoder, minilm: Path) -> None:
    sentences = ["Hello world.", "a dog ran fast"]
    proc = run("embed", str(minilm), *sentences)
    assert proc.returncode == 0, proc.stderr
    printed = np.array([[float(x) for x in line.split()] for line in proc.stdout.splitlines()])
    np.testing.assert_allclose(printed, encoder.embed(sentences), rtol=1e-6, atol=1e-7)


def test_embed_json(encoder: tfm.Encoder, minilm: Path) -> None:
    proc = run("embed", str(minilm), "the cat", "--json", "--library", encoder.library)
    assert proc.returncode == 0, proc.stderr
    [entry] = json.loads(proc.stdout)
    assert entry["sentence"] == "the cat"
    np.testing.assert_allclose(entry["embedding"], encoder.embed("the cat"), rtol=1e-6)


def test_embed_error(tmp_path: Path) -> None:
    proc = run("embed", str(tmp_path / "absent"), "text")
    assert proc.returncode == 1
    assert proc.stderr.startswith("tfm: error: ") and "absent: not a folder" in proc.stderr


def test_compile(gpt: Compiled, tmp_path: Path) -> None:
    out = tmp_path / "cli.so"
    proc = run("compile", str(gpt.spec), "-o", str(out), "--", "--no-pack-weights")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(out)
    assert not tfm.library_info(out).get("prepared")  # no packed copies
    proc = run("compile", str(gpt.spec), "-o", str(out), "--precision", "f7")
    assert proc.returncode == 1 and "--precision=f7 is not a precision" in proc.stderr
