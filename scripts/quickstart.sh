#!/usr/bin/env bash
# README command 1: installs what is missing (apt-get), builds tfm into
# build/, then runs the main job on the bundled example: compile a small
# GPT-style model to a shared library, run it, and show the result.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh

MODEL=examples/tiny-gpt-decoder.json
OUT=build/quickstart
REF="python3 scripts/tfm_ref.py"
mkdir -p "$OUT"

echo "== 1. random weights and a batch of token ids for $MODEL"
$REF init "$MODEL" "$OUT/weights.safetensors" --seed 0
$REF tokens "$MODEL" "$OUT/tokens.npy" --batch 2 --seq 12 --seed 1

echo "== 2. compile: tfmc $MODEL --generation -o $OUT/tiny-gpt.so"
build/bin/tfmc "$MODEL" --generation --weights "$OUT/weights.safetensors" -o "$OUT/tiny-gpt.so"
ls -l "$OUT/tiny-gpt.so" "$OUT/tiny-gpt.h"

echo "== 3. run: top-5 next tokens of each sequence"
build/bin/tfm-run "$OUT/tiny-gpt.so" --weights "$OUT/weights.safetensors" --tokens "$OUT/tokens.npy"

echo "== 4. the logits against an independent float64 reference"
build/bin/tfm-run "$OUT/tiny-gpt.so" --weights "$OUT/weights.safetensors" \
  --tokens "$OUT/tokens.npy" --out "$OUT/logits.npy"
$REF check "$MODEL" "$OUT/weights.safetensors" "$OUT/tokens.npy" "$OUT/logits.npy"

echo "== 5. generate: 8 new tokens after two prompts, with the library's KV cache"
build/bin/tfm-run "$OUT/tiny-gpt.so" --weights "$OUT/weights.safetensors" \
  --prompt-ids 1,5,9,2 --prompt-ids 7,3 --max-new-tokens 8 --greedy
