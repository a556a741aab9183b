"""python -m tfm embed / generate / compile, and examples/generate.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tfm
from conftest import EXAMPLES, Compiled

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


def test_generate_streams_the_text(generator: tfm.TextGenerator, tiny_gpt2: Path) -> None:
    proc = run("generate", str(tiny_gpt2), "the cat", "--max-new-tokens", "12")  # cached library
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == generator.generate("the cat", 12) + "\n"
    proc = run("generate", str(tiny_gpt2), "a dog", "--max-new-tokens", "9", "--top-k", "8",
               "--temperature", "3", "--seed", "4", "--stop-id", "5", "--library", generator.library)
    assert proc.returncode == 0, proc.stderr
    expected = generator.generate("a dog", 9, top_k=8, temperature=3.0, seed=4, stop_ids=[5])
    assert proc.stdout == expected + "\n"


@pytest.mark.parametrize("args, message", [
    (["--top-p", "1.5"], "tfm: error: top_p is 1.5, must lie in (0, 1]"),
    (["--greedy", "--top-k", "3"], "tfm: error: greedy=True cannot be combined with top_k or top_p"),
    (["--temperature", "0.5"], "tfm: error: temperature only applies to sampling"),
    (["--max-new-tokens", "40"], "(max_new_tokens 30 at most)"),
])
def test_generate_errors(generator: tfm.TextGenerator, tiny_gpt2: Path, args, message) -> None:
    proc = run("generate", str(tiny_gpt2), "the cat", "--library", generator.library, *args)
    assert proc.returncode == 1 and proc.stdout == ""
    assert message in proc.stderr


def test_generate_example(generator: tfm.TextGenerator, tiny_gpt2: Path) -> None:
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    proc = subprocess.run([sys.executable, str(EXAMPLES / "generate.py"), str(tiny_gpt2),
                           "the cat sat", "16"], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == generator.generate("the cat sat", 16, top_p=0.9, seed=0) + "\n"
