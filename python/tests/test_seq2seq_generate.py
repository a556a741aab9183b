"""Encoder-decoder generation: Session.encode against forward passes
(Model.seq2seq), Model.generate(..., sources=...) against a recomputation
with forward passes and against tfm-run --source-ids (same seed, same
tokens; beam search with the same hypotheses and scores), and the errors."""

from __future__ import annotations

import subprocess
from typing import Any, Dict, Iterator, List

import numpy as np
import pytest

import tfm
from conftest import REF_INPUTS, Compiled
from tfm._generate import beam_search

TOL = dict(rtol=1e-4, atol=1e-4)
SPEC = REF_INPUTS / "tiny-seq2seq.json"  # vocab 64, max_seq_len 16


@pytest.fixture(scope="module")
def s2s_gen(tmp_path_factory: pytest.TempPathFactory) -> Compiled:
    """tiny-seq2seq with its generation step (tfmc --generation)."""
    return Compiled(SPEC, tmp_path_factory.mktemp("s2s-gen"), 3, generation=True)


@pytest.fixture
def s2s(s2s_gen: Compiled) -> Iterator[tfm.Model]:
    with tfm.Model(s2s_gen.library, s2s_gen.weights) as model:
        yield model


def forward_last(model: tfm.Model, source: List[int], target: List[int]) -> np.ndarray:
    """The next-token logits after a decoder prefix, by a forward pass
    (tfm_model_forward_seq2seq) over the source and the prefix."""
    out: np.ndarray = model.seq2seq(np.array([source]), np.array([target]))[0, -1]
    return out


SOURCES = [[5, 6, 7, 8], [40, 41], [3], [9, 60, 2, 33, 33, 17, 1, 0, 12, 50, 4]]
PREFIXES = [[1], [1], [1, 2], [1, 7, 7]]


def test_manifest_has_a_cross_cache(s2s_gen: Compiled) -> None:
    assert s2s_gen.info["architecture"] == "encoder_decoder"
    assert s2s_gen.info["kv_cache"] == {"layers": 1, "kv_heads": 4, "head_dim": 8,
                                        "cross": True}


# ----- Session.encode -----------------------------------------------------------

def test_encode_prefill_decode_match_seq2seq(s2s: tfm.Model) -> None:
    with s2s.session(max_slots=4, max_context=12) as s:
        s.encode([0, 1, 2, 3], SOURCES)  # ragged lists of ids
        ids = np.zeros((4, 3), dtype=np.int64)
        for i, p in enumerate(PREFIXES):
            ids[i, :len(p)] = p
        logits = s.prefill([0, 1, 2, 3], ids, [len(p) for p in PREFIXES])
        targets = [list(p) for p in PREFIXES]
        for step in range(4):
            for i in range(4):
                np.testing.assert_allclose(logits[i], forward_last(s2s, SOURCES[i], targets[i]),
                                           **TOL)
            nxt = [int(np.argmax(row)) for row in logits]
            for t, n in zip(targets, nxt):
                t.append(n)
            order = [3, 1, 0, 2] if step % 2 else [0, 1, 2, 3]
            rows = s.decode(order, [nxt[i] for i in order])
            logits = rows[np.argsort(order)]
        assert [s.length(i) for i in range(4)] == [len(t) for t in targets]


def test_encode_forms(s2s: tfm.Model) -> None:
    src, tgt = SOURCES[0], [1, 9]
    expected = forward_last(s2s, src, tgt)
    with s2s.session(3, 8) as s:
        s.encode(1, np.array(src, dtype=np.uint8))  # one slot: one sequence
        np.testing.assert_allclose(s.prefill(1, tgt), expected, **TOL)
        # a 2-D array with lengths (padding ignored), any integer dtype
        padded = np.array([src + [63, 63, 63], [40, 41] + [0] * 5], np.int16)
        s.encode([2, 0], padded, lengths=np.array([4, 2], np.uint64))
        assert (s.length(0), s.length(1), s.length(2)) == (0, 2, 0)
        rows = s.prefill([0, 2], [tgt, tgt])
        np.testing.assert_allclose(rows[0], forward_last(s2s, [40, 41], tgt), **TOL)
        np.testing.assert_allclose(rows[1], expected, **TOL)
        # a 2-D array without lengths: every row whole
        s.encode([0], np.array([src]))
        np.testing.assert_allclose(s.prefill(0, tgt), expected, **TOL)
        # encoding again starts the slot over, with the new source
        s.encode(1, [40, 41])
        assert s.length(1) == 0
        np.testing.assert_allclose(s.prefill(1, tgt), forward_last(s2s, [40, 41], tgt), **TOL)


def test_copy_slot_carries_the_source_and_reset_forgets_it(s2s: tfm.Model) -> None:
    src, tgt = SOURCES[3], [1, 4, 4]
    with s2s.session(3, 8) as s:
        s.encode(0, src)
        s.prefill(0, tgt)
        s.copy_slot(0, 2)  # an empty slot without a source gets both
        rows = s.decode([0, 2], [11, 11])
        assert np.array_equal(rows[0], rows[1])
        np.testing.assert_allclose(rows[1], forward_last(s2s, src, tgt + [11]), **TOL)
        s.reset(2)
        with pytest.raises(tfm.InvalidArgumentError, match=r"^slot 2 \(slots\[0\]\) has no source"):
            s.prefill(2, tgt)


@pytest.mark.parametrize("call, error, message", [
    # the library's checks
    ("s.encode([0, 2], [[1], [2]])", tfm.InvalidArgumentError,
     r"^slots\[1\] is 2, outside \[0, 2\) \(max_slots of the session\)$"),
    ("s.encode([1, 1], [[1], [2]])", tfm.InvalidArgumentError,
     r"^slots\[1\] is 1, the same slot as slots\[0\]"),
    ("s.encode([1], [[1, 64, 3]])", tfm.InvalidArgumentError,
     r"^src\[0\]\[1\] \(slot 1\) is token id 64, outside \[0, 64\)$"),
    ("s.encode([1, 0], [[1, 2], []])", tfm.InvalidArgumentError,
     r"^src_lengths\[1\] is 0, must lie in \[1, 2\]$"),
    ("s.encode([1], [[1, 2, 3]], [4])", tfm.InvalidArgumentError,
     r"^src_lengths\[0\] is 4, must lie in \[1, 3\]$"),
    ("s.encode([1], [[1] * 17])", tfm.InvalidArgumentError,
     r"^src_seq is 17, must lie in \[1, 16\] \(max_seq_len\)$"),
    ("s.encode([], [])", tfm.InvalidArgumentError, r"^n is 0, must lie in \[1, 2\]"),
    ("s.prefill([1], [[1]])", tfm.InvalidArgumentError,
     r"^slot 1 \(slots\[0\]\) has no source: an encoder-decoder session encodes a source "
     r"into the slot first \(tfm_session_encode\)$"),
    ("s.decode([0, 1], [1, 1])", tfm.InvalidArgumentError,
     r"^slot 1 \(slots\[1\]\) has no source"),
    # checked in Python
    ("s.encode([0, 1], [[1, 2]])", tfm.InvalidArgumentError,
     r"^sources has 1 sequences, slots lists 2 slots$"),
    ("s.encode([0, 1], np.array([[1, 2]]))", tfm.InvalidArgumentError,
     r"^sources has 1 rows, slots lists 2 slots$"),
    ("s.encode([0], [[1, 2]], [1, 2])", tfm.InvalidArgumentError,
     r"^lengths has 2 entries, slots lists 1 slots$"),
    ("s.encode([0], [[1.5, 2]])", tfm.InvalidArgumentError, r"^sources\[0\] must hold integers"),
    ("s.encode([0], [[2**31]])", tfm.InvalidArgumentError,
     r"^sources\[0\]\[0\] is 2147483648, outside the int32 range of the C ABI$"),
    ("s.encode([0], 5)", tfm.InvalidArgumentError, r"^sources must be a list of token id sequences"),
    ("s.encode(0, [[1, 2]])", tfm.InvalidArgumentError,
     r"^sources must have shape \[src_seq\] \(one slot\)"),
])
def test_session_encode_errors(s2s: tfm.Model, call: str, error: type, message: str) -> None:
    with s2s.session(2, 8) as s:
        s.encode(0, [7, 8, 9])
        before = s.prefill(0, [1, 2])
        with pytest.raises(error, match=message) as e:
            eval(call, {"np": np}, {"s": s})
        assert e.value.status == getattr(error, "status", None)
        # a failed call changes nothing: the session goes on
        assert (s.length(0), s.length(1)) == (2, 0)
        after = s.decode(0, 10)
    np.testing.assert_allclose(before, forward_last(s2s, [7, 8, 9], [1, 2]), **TOL)
    np.testing.assert_allclose(after, forward_last(s2s, [7, 8, 9], [1, 2, 10]), **TOL)


def test_session_encode_on_a_decoder(gen_model: tfm.Model) -> None:
    with gen_model.session(1, 4) as s:
        with pytest.raises(tfm.UnsupportedError,
                           match=r"^the session's model is a decoder: tfm_session_encode is for "
                                 r"encoder-decoder models \(prefill the prompt instead\)$") as e:
            s.encode(0, [1, 2])
        assert e.value.status_name == "TFM_ERROR_UNSUPPORTED"
        assert s.prefill(0, [1, 2]).shape == (64,)  # still usable


# ----- Model.generate -----------------------------------------------------------

def test_greedy_equals_recomputation(s2s: tfm.Model) -> None:
    n_new = 6
    generated = s2s.generate(PREFIXES, n_new, greedy=True, sources=SOURCES)
    assert generated == s2s.generate(PREFIXES, n_new, sources=SOURCES)  # greedy: the default
    for source, prefix, tokens in zip(SOURCES, PREFIXES, generated):
        target = list(prefix)
        for _ in range(n_new):
            target.append(int(np.argmax(forward_last(s2s, source, target))))
        assert tokens == target[len(prefix):]
        assert s2s.generate([prefix], n_new, sources=[source]) == [tokens]  # alone: the same
    # the same tokens with the same prefix: the source decides
    assert len({tuple(t) for t in s2s.generate([[1]] * 4, n_new, sources=SOURCES)}) > 1


def test_source_forms(s2s: tfm.Model) -> None:
    expected = s2s.generate([[1], [1]], 4, sources=[[5, 6, 7], [9, 9, 1]])
    assert s2s.generate(np.array([[1], [1]]), 4,
                        sources=np.array([[5, 6, 7], [9, 9, 1]], np.int16)) == expected
    assert s2s.generate([1], 4, sources=[5, 6, 7]) == expected[:1]  # one sequence each
    assert s2s.generate([1], 4, sources=np.array([5, 6, 7], np.uint64)) == expected[:1]
    assert s2s.generate([[1], [1]], 4, sources=[np.array([5, 6, 7]), (9, 9, 1)]) == expected
    assert s2s.generate([[1]], 0, sources=[[5]]) == [[]]
    assert s2s.generate([], 4, sources=[]) == []
    assert s2s.generate([[1] * 16], 1, sources=[[2] * 16]) == \
        s2s.generate([[1] * 16], 1, sources=[[2] * 16])  # a full prompt and source


def run_tfm_run(c: Compiled, prompts: List[List[int]], sources: List[List[int]], n_new: int,
                args: List[str]) -> List[str]:
    """tfm-run's output lines, the sources given as --source-ids."""
    cmd = [tfm.find_tool("tfm-run"), c.library, "--weights", str(c.weights),
           "--max-new-tokens", str(n_new), *args]
    for source, prompt in zip(sources, prompts):
        cmd += ["--source-ids", ",".join(map(str, source)),
                "--prompt-ids", ",".join(map(str, prompt))]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def generated_lines(lines: List[str]) -> List[List[int]]:
    return [[int(t) for t in line.split(":", 1)[1].split()]
            for line in lines if line.startswith("generated[")]


@pytest.mark.parametrize("kwargs, args", [
    (dict(), []),
    (dict(top_p=0.9, temperature=3.0, seed=7), ["--top-p", "0.9", "--temperature", "3", "--seed", "7"]),
    (dict(top_k=5, top_p=0.8, temperature=2.5, seed=12345, stop_ids=[50, 52]),
     ["--top-k", "5", "--top-p", "0.8", "--temperature", "2.5", "--seed", "12345",
      "--stop-id", "50", "--stop-id", "52"]),
    (dict(top_p=1.0, temperature=6.0, seed=2**64 - 1),
     ["--top-p", "1", "--temperature", "6", "--seed", str(2**64 - 1)]),
], ids=["greedy", "top-p", "top-k-top-p-stop", "top-p-1"])
def test_sampling_equals_tfm_run(s2s_gen: Compiled, s2s: tfm.Model,
                                 kwargs: Dict[str, Any], args: List[str]) -> None:
    n_new = 9
    ours = s2s.generate(PREFIXES, n_new, sources=SOURCES, **kwargs)
    assert ours == generated_lines(run_tfm_run(s2s_gen, PREFIXES, SOURCES, n_new, args))
    assert all(len(t) == n_new or t[-1] in kwargs.get("stop_ids", []) for t in ours)
    if "stop_ids" in kwargs:  # some sequence stopped early, after a stop id
        assert any(len(t) < n_new for t in ours)


@pytest.mark.parametrize("beam, length_penalty, form, stop_ids", [
    (4, None, None, []), (3, 2.0, None, []), (3, 0.0, None, [50, 61]), (1, None, None, []),
    (4, None, "power", [50, 61]),
])
def test_beam_equals_tfm_run(s2s_gen: Compiled, s2s: tfm.Model, beam: int,
                             length_penalty: Any, form: Any, stop_ids: List[int]) -> None:
    """The same hypotheses, in the same order, with the same scores (to the
    printed digits) as tfm-run --beam --source-ids."""
    n_new = 8
    args = ["--beam", str(beam), "--num-return", str(beam)]
    if length_penalty is not None:
        args += ["--length-penalty", repr(length_penalty)]
    if form is not None:
        args += ["--length-penalty-form", form]
    for t in stop_ids:
        args += ["--stop-id", str(t)]
    hypotheses = beam_search(s2s, PREFIXES, n_new, beam=beam, length_penalty=length_penalty,
                             length_penalty_form=form, stop_ids=stop_ids, sources=SOURCES)
    lines = [f"hypothesis[{g}][{k}]: score {h.score:.6f}:" + "".join(f" {t}" for t in h.tokens)
             for g, hs in enumerate(hypotheses) for k, h in enumerate(hs)]
    best = s2s.generate(PREFIXES, n_new, beam=beam, length_penalty=length_penalty,
                        length_penalty_form=form, stop_ids=stop_ids, sources=SOURCES)
    lines += [f"generated[{g}]:" + "".join(f" {t}" for t in tokens)
              for g, tokens in enumerate(best)]
    assert lines == run_tfm_run(s2s_gen, PREFIXES, SOURCES, n_new, args)
    for hs, tokens in zip(hypotheses, best):
        assert len(hs) == beam and hs[0].tokens == tokens
    if stop_ids:  # some hypothesis ended early, with a stop id
        assert any(len(h.tokens) < n_new and h.tokens[-1] in stop_ids
                   for hs in hypotheses for h in hs)
    if beam == 1:
        assert best == s2s.generate(PREFIXES, n_new, sources=SOURCES)


@pytest.mark.parametrize("args, kwargs, message", [
    (([[1]], 2), {},
     r"\(model 'tiny-seq2seq'\) is an encoder-decoder: pass the source of each prompt with "
     r"sources=\[\.\.\.\] \(the prompt is the decoder's prefix, e.g\. its start token\)$"),
    (([[1]], 2), dict(beam=3), r"is an encoder-decoder: pass the source of each prompt"),
    (([[1], [1]], 2), dict(sources=[[5, 6]]),
     r"^sources has 1 sequences and prompts 2: one source per prompt$"),
    (([[1]], 2), dict(sources=[[5], [6]], beam=2),
     r"^sources has 2 sequences and prompts 1: one source per prompt$"),
    (([[1], [1]], 2), dict(sources=[5, 6]), r"^sources has 1 sequences and prompts 2"),
    (([[1]], 2), dict(sources=[[]]),
     r"^sources\[0\] has 0 tokens; a source has 1 to max_seq_len 16 \(of model 'tiny-seq2seq'\)$"),
    (([[1]], 2), dict(sources=[[1] * 17]), r"^sources\[0\] has 17 tokens; a source has 1 to"),
    (([[1], [1]], 2), dict(sources=[[1], [3, 64]]),
     r"^sources\[1\]\[1\] is token id 64, outside \[0, 64\) \(vocab_size of model "
     r"'tiny-seq2seq'\)$"),
    (([[1]], 2), dict(sources=[[-1]]), r"^sources\[0\]\[0\] is token id -1, outside"),
    (([[1]], 2), dict(sources=[[1.0]]), r"^sources\[0\] must hold integers"),
    (([[1]], 2), dict(sources="hello"), r"^sources must be token ids .* got a string"),
    (([[1]], 2), dict(sources=7), r"^sources must be a list of token id sequences or one"),
    # the prompts are checked as for decoders, after the sources
    (([[1, 64]], 2), dict(sources=[[1]]), r"^prompts\[0\]\[1\] is token id 64, outside"),
    (([[1] * 10], 8), dict(sources=[[1]]),
     r"^prompts\[0\] has 10 tokens: generating 8 more feeds the model 17 tokens"),
    (([[1]], 2), dict(sources=[[1]], temperature=0.5), r"^temperature only applies to sampling"),
])
def test_generate_errors(s2s: tfm.Model, args: Any, kwargs: Dict[str, Any], message: str) -> None:
    with pytest.raises(tfm.InvalidArgumentError, match=message):
        s2s.generate(*args, **kwargs)


def test_sources_for_a_decoder(gen_model: tfm.Model) -> None:
    for kwargs in (dict(), dict(beam=2)):
        with pytest.raises(tfm.InvalidArgumentError,
                           match=r"^sources is for encoder-decoder models; .* \(model "
                                 r"'tiny-gpt-decoder'\) is a decoder$"):
            gen_model.generate([[1]], 2, sources=[[5]], **kwargs)
    assert len(gen_model.generate([[1]], 2)[0]) == 2


def test_encoder_decoder_without_generation_step(seq2seq: Compiled) -> None:
    with tfm.Model(seq2seq.library, seq2seq.weights) as model:
        with pytest.raises(tfm.UnsupportedError,
                           match=r"\(model 'tiny-seq2seq'\) has no generation step: it was compiled "
                                 r"without generation entries; compile it with "
                                 r"tfm\.compile\(\.\.\., generation=True\)"):
            model.generate([[1]], 2, sources=[[5]])
        with pytest.raises(tfm.UnsupportedError,
                           match=r"compile it with tfm\.compile\(\.\.\., generation=True\)$"):
            model.session()
