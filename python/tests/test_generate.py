"""Generation: tfm.Session against forward passes, Model.generate against a
recomputation with forward passes and against tfm-run's sampler (same
seed, same tokens), beam search against tfm-run's and an exhaustive search,
every argument error, the sampler's rules."""

from __future__ import annotations

import subprocess
import threading
from typing import Any, Dict, List

import numpy as np
import pytest

import tfm
from conftest import Compiled
from tfm._generate import MT19937_64, Hypothesis, Sampler, beam_search

TOL = dict(rtol=1e-4, atol=1e-4)


def forward_last(model: tfm.Model, sequence: List[int]) -> np.ndarray:
    """The next-token logits after a sequence, by a forward pass over it."""
    out: np.ndarray = model(np.array([sequence], dtype=np.int32))[0, -1]
    return out


def test_compile_with_generation(gpt_gen: Compiled, gpt: Compiled) -> None:
    assert gpt_gen.info["kv_cache"] == {"layers": 2, "kv_heads": 4, "head_dim": 8}
    assert "kv_cache" not in gpt.info


# ----- sessions ----------------------------------------------------------------

def test_prefill_and_decode_match_forward(gpt_gen: Compiled, gen_model: tfm.Model) -> None:
    prompts = [gpt_gen.tokens(1, n, seed=40 + n)[0].tolist() for n in (5, 1, 9)]
    with gen_model.session(max_slots=3, max_context=16) as s:
        ids = np.zeros((3, 9), dtype=np.int64)  # any integer dtype
        for i, p in enumerate(prompts):
            ids[i, :len(p)] = p
        logits = s.prefill([0, 1, 2], ids, lengths=[len(p) for p in prompts])
        assert logits.shape == (3, 64) and logits.dtype == np.float32
        for step in range(4):
            for i, p in enumerate(prompts):
                np.testing.assert_allclose(logits[i], forward_last(gen_model, p), **TOL)
            nxt = [int(np.argmax(row)) for row in logits]
            for p, t in zip(prompts, nxt):
                p.append(t)
            # slots in another order than the rows: row i is slots[i]
            order = [2, 0, 1] if step % 2 else [0, 1, 2]
            rows = s.decode(order, np.array([nxt[i] for i in order], dtype=np.uint8))
            logits = rows[np.argsort(order)]
        assert [s.length(i) for i in range(3)] == [len(p) for p in prompts]


def test_chunked_prefill_and_single_slot_forms(gpt_gen: Compiled, gen_model: tfm.Model) -> None:
    seq = gpt_gen.tokens(1, 10, seed=50)[0].tolist()
    with gen_model.session(2) as s:
        assert (s.max_slots, s.max_context, s.vocab_size) == (2, 16, 64)
        first = s.prefill(1, seq[:4])  # one slot: ids [seq], logits [vocab]
        assert first.shape == (64,)
        np.testing.assert_allclose(first, forward_last(gen_model, seq[:4]), **TOL)
        chunk = s.prefill([1], [seq[4:9] + [0, 0]], [5])  # appended after the 4
        np.testing.assert_allclose(chunk[0], forward_last(gen_model, seq[:9]), **TOL)
        one = s.decode(1, seq[9])
        np.testing.assert_allclose(one, forward_last(gen_model, seq), **TOL)
        assert (s.length(0), s.length(1)) == (0, 10)
        out = np.empty((1, 64), np.float32)
        assert s.decode([1], [3], out=out) is out


def test_reset_gives_a_fresh_slot(gpt_gen: Compiled, gen_model: tfm.Model) -> None:
    a, b = gpt_gen.tokens(2, 6, seed=51)
    with gen_model.session(2, 12) as fresh:
        expected = fresh.prefill([0, 1], [a, b])
    with gen_model.session(2, 12) as s:
        s.prefill([0, 1], [b, a])
        s.decode([0, 1], [1, 2])
        s.reset(0)
        s.reset(1)
        assert (s.length(0), s.length(1)) == (0, 0)
        assert np.array_equal(s.prefill([0, 1], [a, b]), expected)
        s.reset(1)  # the other slot is untouched
        assert (s.length(0), s.length(1)) == (6, 0)


def session_call(s: tfm.Session, call: str) -> Any:
    return eval(call, {"np": np}, {"s": s})


@pytest.mark.parametrize("call, error, message", [
    ("s.prefill([0, 2], [[1, 2], [3, 4]])", tfm.InvalidArgumentError,
     r"^slots\[1\] is 2, outside \[0, 2\) \(max_slots of the session\)$"),
    ("s.prefill([1, 1], [[1, 2], [3, 4]])", tfm.InvalidArgumentError,
     r"^slots\[1\] is 1, the same slot as slots\[0\]"),
    ("s.prefill([1], [[1, 64, 3]])", tfm.InvalidArgumentError,
     r"^ids\[0\]\[1\] \(row 0, slot 1, position 1\) is token id 64, outside \[0, 64\)$"),
    ("s.prefill([1], [[1, 2, 3]], [0])", tfm.InvalidArgumentError,
     r"^lengths\[0\] is 0, must lie in \[1, 3\]$"),
    ("s.prefill([0], [[1] * 6])", tfm.InvalidArgumentError,
     r"^slot 0 holds 3 tokens; appending 6 exceeds max_context 8$"),
    ("s.decode([1], [5])", tfm.InvalidArgumentError,
     r"^slot 1 \(slots\[0\]\) holds no tokens: decode appends after them, prefill it first$"),
    ("s.decode([0], [-1])", tfm.InvalidArgumentError,
     r"^ids\[0\] \(slot 0\) is token id -1, outside \[0, 64\)$"),
    ("s.reset(-1)", tfm.InvalidArgumentError, r"^slot is -1, outside \[0, 2\)"),
    ("s.length(2)", tfm.InvalidArgumentError, r"^slot is 2, outside \[0, 2\)"),
    ("s.prefill([], np.zeros((0, 3), np.int32))", tfm.InvalidArgumentError,
     r"^n is 0, must be at least 1$"),
    # checked in Python
    ("s.prefill([0, 1], [[1, 2]])", tfm.InvalidArgumentError, r"^ids has 1 rows, slots lists 2"),
    ("s.prefill([0], [[1, 2]], [1, 2])", tfm.InvalidArgumentError,
     r"^lengths has 2 entries, slots lists 1"),
    ("s.prefill([0], [1, 2])", tfm.InvalidArgumentError, r"^ids must have shape \[n, seq\]"),
    ("s.prefill([0], [[1.5, 2]])", tfm.InvalidArgumentError, r"^ids must hold integers"),
    ("s.prefill([2**63], [[1]])", tfm.InvalidArgumentError,
     r"^slots\[0\] is 9223372036854775808, outside the int64 range"),
    ("s.decode([0, 1], [5])", tfm.InvalidArgumentError, r"^ids has 1 tokens, slots lists 2"),
    ("s.decode(0, [5])", tfm.InvalidArgumentError, r"^ids must be one token id"),
    ("s.reset(0.0)", tfm.InvalidArgumentError, r"^slot must be an int, got float"),
    ("s.length(True)", tfm.InvalidArgumentError, r"^slot must be an int, got bool"),
    ("s.decode([0], [1], out=np.empty((1, 63), np.float32))", tfm.InvalidArgumentError,
     r"^out has shape \[1, 63\], the output is \[1, 64\]"),
])
def test_session_errors(gen_model: tfm.Model, call: str, error: type, message: str) -> None:
    with gen_model.session(2, 8) as s:
        before = s.prefill(0, [7, 8, 9])
        with pytest.raises(error, match=message) as e:
            session_call(s, call)
        assert e.value.status == getattr(error, "status", None)
        # a failed call changes nothing: the session goes on
        assert (s.length(0), s.length(1)) == (3, 0)
        after = s.decode(0, 10)
    with gen_model.session(1, 8) as t:
        t.prefill(0, [7, 8, 9])
        assert np.array_equal(after, t.decode(0, 10))
        assert before.shape == (64,)


@pytest.mark.parametrize("kwargs, message", [
    (dict(max_slots=0), r"^max_slots is 0, must be at least 1$"),
    (dict(max_slots=1, max_context=17),
     r"^max_context is 17, must lie in \[1, 16\] \(max_seq_len of model 'tiny-gpt-decoder'\)$"),
    (dict(max_slots=1, max_context=0), r"^max_context is 0, must lie in \[1, 16\]"),
    (dict(max_slots=2**62, max_context=16), r"the KV cache's size overflows"),
    (dict(max_slots=2**64), r"^max_slots is 18446744073709551616, outside the int64 range"),
    (dict(max_slots="2"), r"^max_slots must be an int, got str"),
])
def test_session_create_errors(gen_model: tfm.Model, kwargs: Dict[str, Any], message: str) -> None:
    with pytest.raises(tfm.InvalidArgumentError, match=message):
        gen_model.session(**kwargs)
    with gen_model.session() as s:  # the model is fine
        assert s.max_context == 16


def test_session_needs_a_generation_step(gpt_model: tfm.Model, bert_classifier: Compiled) -> None:
    with pytest.raises(tfm.UnsupportedError,
                       match=r"^model 'tiny-gpt-decoder' has no generation step: it was compiled "
                             r"without generation entries \(tfmc --generation\); compile it with "
                             r"tfm\.compile\(\.\.\., generation=True\)$") as e:
        tfm.Session(gpt_model, 1, 4)
    assert e.value.status_name == "TFM_ERROR_UNSUPPORTED"
    with tfm.Model(bert_classifier.library, bert_classifier.weights) as encoder:
        with pytest.raises(tfm.UnsupportedError,
                           match=r"^model 'tiny-bert-classifier' is an encoder: generation "
                                 r"sessions need a decoder"):
            encoder.session()
    gpt_model(np.zeros((1, 2), np.int32))  # still usable


def test_session_life_cycle(gpt_gen: Compiled) -> None:
    model = tfm.Model(gpt_gen.library, gpt_gen.weights)
    s = model.session(1, 4)
    assert "1 slots of 4 tokens, open" in repr(s)
    model.close()  # the session keeps the model until it is closed
    with pytest.raises(tfm.Error, match="the model is closed"):
        model.session()
    assert s.prefill(0, [1, 2]).shape == (64,)
    assert model._handle is not None
    s.close()
    s.close()  # twice is fine
    assert model._handle is None
    with pytest.raises(tfm.Error, match="the session is closed"):
        s.decode(0, 3)
    with pytest.raises(tfm.Error, match="the session is closed"):
        s.length(0)
    assert "closed" in repr(s)


def test_sessions_on_threads(gpt_gen: Compiled, gen_model: tfm.Model) -> None:
    prompts = [gpt_gen.tokens(1, 4, seed=60 + i)[0].tolist() for i in range(4)]
    expected = [gen_model.generate(p, 8) for p in prompts]
    results: Dict[int, Any] = {}
    shared = gen_model.session(4, 16)

    def work(i: int) -> None:
        results[i] = gen_model.generate(prompts[i], 8)   # a session each
        for _ in range(5):  # one session from every thread: the calls take turns
            shared.reset(i)
            shared.prefill(i, prompts[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [results[i] for i in range(4)] == expected
    assert [shared.length(i) for i in range(4)] == [4] * 4
    shared.close()


# ----- Model.generate -----------------------------------------------------------

def test_greedy_equals_recomputation(gpt_gen: Compiled, gen_model: tfm.Model) -> None:
    n_new = 5
    prompts = [gpt_gen.tokens(1, n, seed=70 + n)[0].tolist() for n in (1, 3, 7, 12)]
    generated = gen_model.generate(prompts, n_new, greedy=True)
    for prompt, tokens in zip(prompts, generated):
        sequence = list(prompt)
        for _ in range(n_new):
            sequence.append(int(np.argmax(forward_last(gen_model, sequence))))
        assert tokens == sequence[len(prompt):]
        assert gen_model.generate([prompt], n_new) == [tokens]  # alone: the same
    # the default is greedy, and a model without a session would say so
    assert gen_model.generate(prompts, n_new) == generated


def run_tfm_run(gpt_gen: Compiled, prompts: List[List[int]], n_new: int, args: List[str]) -> List[List[int]]:
    cmd = [tfm.find_tool("tfm-run"), gpt_gen.library, "--weights", str(gpt_gen.weights),
           "--max-new-tokens", str(n_new), *args]
    for p in prompts:
        cmd += ["--prompt-ids", ",".join(map(str, p))]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("generated[")]
    return [[int(t) for t in line.split(":", 1)[1].split()] for line in lines]


@pytest.mark.parametrize("kwargs, args", [
    (dict(), []),
    (dict(top_k=40, temperature=0.8, seed=1), ["--top-k", "40", "--temperature", "0.8", "--seed", "1"]),
    (dict(top_p=0.9, temperature=3.0, seed=7), ["--top-p", "0.9", "--temperature", "3", "--seed", "7"]),
    (dict(top_p=1.0, temperature=4.5, seed=2**64 - 1, stop_ids=[8, 17]),
     ["--top-p", "1", "--temperature", "4.5", "--seed", str(2**64 - 1), "--stop-id", "8",
      "--stop-id", "17"]),
    (dict(top_k=5, top_p=0.8, temperature=2.5, seed=12345),
     ["--top-k", "5", "--top-p", "0.8", "--temperature", "2.5", "--seed", "12345"]),
    (dict(top_k=1, seed=3), ["--top-k", "1", "--seed", "3"]),
    (dict(top_k=1000, temperature=10.0, seed=0), ["--top-k", "1000", "--temperature", "10"]),
], ids=["greedy", "top-k", "top-p", "stop-ids", "top-k-top-p", "top-1", "top-k-over-vocab"])
def test_sampling_equals_tfm_run(gpt_gen: Compiled, gen_model: tfm.Model,
                                 kwargs: Dict[str, Any], args: List[str]) -> None:
    prompts = [[5, 17, 3], [4, 4], [1], gpt_gen.tokens(1, 8, seed=80)[0].tolist()]
    n_new = 9
    ours = gen_model.generate(prompts, n_new, **kwargs)
    assert ours == run_tfm_run(gpt_gen, prompts, n_new, args)
    if "stop_ids" in kwargs:  # some sequence stopped early, after a stop id
        assert any(len(t) < n_new and t[-1] in kwargs["stop_ids"] for t in ours)
    else:
        assert all(len(t) == n_new for t in ours)


def test_prompt_forms(gen_model: tfm.Model) -> None:
    expected = gen_model.generate([[5, 17, 3], [9, 9, 1]], 4)
    assert gen_model.generate(np.array([[5, 17, 3], [9, 9, 1]], dtype=np.int16), 4) == expected
    assert gen_model.generate([5, 17, 3], 4) == expected[:1]          # one sequence
    assert gen_model.generate(np.array([5, 17, 3], np.uint64), 4) == expected[:1]
    assert gen_model.generate([np.array([5, 17, 3]), (9, 9, 1)], 4) == expected
    assert gen_model.generate([[5, 17, 3]], 0) == [[]]
    assert gen_model.generate([], 4) == []
    assert gen_model.generate([[1] * 16], 1) == gen_model.generate([[1] * 16], 1)  # a full prompt
    sampled = gen_model.generate([[1, 2]], 6, top_p=1.0, temperature=5.0)  # seed None: random
    assert len(sampled[0]) == 6


@pytest.mark.parametrize("args, kwargs, message", [
    (([[1]], -1), {}, r"^max_new_tokens is -1, must be at least 0$"),
    (([[1]], 2.0), {}, r"^max_new_tokens must be an int, got float$"),
    (([[1]], 2), dict(greedy=True, top_k=3), r"^greedy=True cannot be combined with top_k or top_p"),
    (([[1]], 2), dict(greedy=True, top_p=0.5), r"^greedy=True cannot be combined"),
    (([[1]], 2), dict(top_k=0), r"^top_k is 0, must be at least 1$"),
    (([[1]], 2), dict(top_k=2.5), r"^top_k must be an int, got float$"),
    (([[1]], 2), dict(top_p=0.0), r"^top_p is 0, must lie in \(0, 1\]$"),
    (([[1]], 2), dict(top_p=1.5), r"^top_p is 1\.5, must lie in \(0, 1\]$"),
    (([[1]], 2), dict(top_p=float("nan")), r"^top_p is nan, must lie in \(0, 1\]$"),
    (([[1]], 2), dict(top_k=3, temperature=0), r"^temperature is 0, must be a positive number$"),
    (([[1]], 2), dict(top_k=3, temperature=float("inf")), r"^temperature is inf, must be a positive"),
    (([[1]], 2), dict(temperature=0.5),
     r"^temperature only applies to sampling: pass top_k or top_p \(top_p=1\.0 samples"),
    (([[1]], 2), dict(top_k=3, seed=-1), r"^seed is -1, must be an int in \[0, 2\*\*64\)$"),
    (([[1]], 2), dict(top_k=3, seed=2**64), r"^seed is 18446744073709551616, must be an int"),
    (([[1]], 2), dict(greedy=None), r"^greedy must be a bool"),
    (([[1], []], 2), {}, r"^prompts\[1\] is empty: a prompt needs at least one token$"),
    (([[1, 64]], 2), {},
     r"^prompts\[0\]\[1\] is token id 64, outside \[0, 64\) \(vocab_size of model 'tiny-gpt-decoder'\)$"),
    (([[-3]], 2), {}, r"^prompts\[0\]\[0\] is token id -3, outside \[0, 64\)"),
    (([[1] * 17], 0), {}, r"^prompts\[0\] has 17 tokens, more than max_seq_len 16 of model"),
    (([[1], [1] * 10], 8), {},
     r"^prompts\[1\] has 10 tokens: generating 8 more feeds the model 17 tokens \(all but the last "
     r"generated one\), more than max_seq_len 16 of model 'tiny-gpt-decoder' \(max_new_tokens 7 at most\)$"),
    (([[1]], 2), dict(stop_ids=[3, 64]),
     r"^stop id 64 is outside \[0, 64\) \(vocab_size of model 'tiny-gpt-decoder'\)$"),
    (([[1]], 2), dict(stop_ids=["a"]), r"^stop_ids must hold ints, got str$"),
    (([[1.0]], 2), {}, r"^prompts\[0\] must hold integers"),
    (("hello", 2), {}, r"^prompts must be token ids .* got a string: tokenize it first"),
    ((5, 2), {}, r"^prompts must be a list of token id sequences or one sequence, got int$"),
    ((np.zeros((1, 2, 3), np.int32), 2), {}, r"^prompts must be .* got an array of shape \[1, 2, 3\]$"),
])
def test_generate_errors(gen_model: tfm.Model, args: Any, kwargs: Dict[str, Any], message: str) -> None:
    before = gen_model.generate([[5, 17, 3]], 3)
    with pytest.raises(tfm.InvalidArgumentError, match=message):
        gen_model.generate(*args, **kwargs)
    assert gen_model.generate([[5, 17, 3]], 3) == before  # the model is still usable


def test_generate_needs_a_generation_step(gpt_model: tfm.Model, bert_classifier: Compiled) -> None:
    with pytest.raises(tfm.UnsupportedError,
                       match=r"\(model 'tiny-gpt-decoder'\) has no generation step: it was compiled "
                             r"without generation entries; compile it with "
                             r"tfm\.compile\(\.\.\., generation=True\)"):
        gpt_model.generate([[1, 2]], 3)
    with tfm.Model(bert_classifier.library, bert_classifier.weights) as encoder:
        with pytest.raises(tfm.UnsupportedError,
                           match=r"is not a language model \(encoder with classes output\)"):
            encoder.generate([[1, 2]], 3)


# ----- Session.copy_slot ----------------------------------------------------------

def test_copy_slot(gpt_gen: Compiled, gen_model: tfm.Model) -> None:
    a = gpt_gen.tokens(1, 5, seed=90)[0].tolist()
    with gen_model.session(3, 12) as s:
        s.prefill(0, a)
        s.prefill(1, list(range(1, 9)))  # longer than a: what it held goes
        s.copy_slot(0, 1)
        assert (s.length(0), s.length(1)) == (5, 5)
        rows = s.decode([0, 1], [7, 7])
        assert np.array_equal(rows[0], rows[1])  # the copy continues exactly like a
        np.testing.assert_allclose(rows[0], s.prefill(2, a + [7]), **TOL)  # like a fresh slot
        np.testing.assert_allclose(rows[0], forward_last(gen_model, a + [7]), **TOL)
        s.copy_slot(2, 2)  # itself: nothing happens
        assert s.length(2) == 6
        s.copy_slot(np.int64(1), 2)  # shorter over longer
        np.testing.assert_allclose(s.decode(2, 9), forward_last(gen_model, a + [7, 9]), **TOL)
        s.reset(2)
        s.copy_slot(2, 0)  # an empty slot copied: empty
        assert [s.length(i) for i in range(3)] == [0, 6, 0]
        with pytest.raises(tfm.InvalidArgumentError,
                           match=r"^dst is 3, outside \[0, 3\) \(max_slots of the session\)$"):
            s.copy_slot(0, 3)
        with pytest.raises(tfm.InvalidArgumentError, match=r"^src is -1, outside \[0, 3\)"):
            s.copy_slot(-1, 0)
        with pytest.raises(tfm.InvalidArgumentError, match=r"^src must be an int, got float$"):
            s.copy_slot(0.0, 1)
        assert [s.length(i) for i in range(3)] == [0, 6, 0]  # failed calls change nothing
    with pytest.raises(tfm.Error, match="the session is closed"):
        s.copy_slot(0, 1)


# ----- beam search ---------------------------------------------------------------

def log_softmax(logits: np.ndarray) -> np.ndarray:
    x = logits.astype(np.float64)
    x = x - x.max(axis=-1, keepdims=True)
    out: np.ndarray = x - np.log(np.exp(x).sum(axis=-1, keepdims=True))
    return out


def run_tfm_run_beam(gpt_gen: Compiled, prompts: List[List[int]], n_new: int,
                     args: List[str]) -> List[str]:
    """tfm-run's output lines (hypotheses with scores, then generated)."""
    cmd = [tfm.find_tool("tfm-run"), gpt_gen.library, "--weights", str(gpt_gen.weights),
           "--max-new-tokens", str(n_new), *args]
    for p in prompts:
        cmd += ["--prompt-ids", ",".join(map(str, p))]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def likely_tokens(model: tfm.Model, prompts: List[List[int]], n_new: int) -> List[int]:
    """The two tokens greedy generation produces most often: stop ids that
    end some hypotheses."""
    counts: Dict[int, int] = {}
    for tokens in model.generate(prompts, n_new):
        for t in tokens:
            counts[t] = counts.get(t, 0) + 1
    return sorted(counts, key=lambda t: (-counts[t], t))[:2]


@pytest.mark.parametrize("beam, length_penalty, form, stops", [
    (4, None, None, 1), (2, 0.0, None, 2), (3, 2.0, None, 0), (1, None, None, 0),
    (4, -0.5, None, 2), (5, 1.0, None, 1), (4, None, "power", 1), (3, 2.0, "power", 2),
    (4, 0.6, "gnmt", 2),
])
def test_beam_equals_tfm_run(gpt_gen: Compiled, gen_model: tfm.Model, beam: int,
                             length_penalty: Any, form: Any, stops: int) -> None:
    """The same hypotheses in the same order with the same scores (to the
    printed digits, from the same float64 values) as tfm-run --beam, for
    both length penalty forms (GNMT's by default)."""
    prompts = [[5, 17, 3], [4, 4], [1], gpt_gen.tokens(1, 8, seed=81)[0].tolist()]
    n_new = 8
    stop_ids = likely_tokens(gen_model, prompts, n_new)[:stops]
    args = ["--beam", str(beam), "--num-return", str(beam)]
    if length_penalty is not None:
        args += ["--length-penalty", repr(length_penalty)]
    if form is not None:
        args += ["--length-penalty-form", form]
    for t in stop_ids:
        args += ["--stop-id", str(t)]
    hypotheses = beam_search(gen_model, prompts, n_new, beam=beam,
                             length_penalty=length_penalty, length_penalty_form=form,
                             stop_ids=stop_ids)
    lines = [f"hypothesis[{g}][{k}]: score {h.score:.6f}:" + "".join(f" {t}" for t in h.tokens)
             for g, hs in enumerate(hypotheses) for k, h in enumerate(hs)]
    best = gen_model.generate(prompts, n_new, beam=beam, length_penalty=length_penalty,
                              length_penalty_form=form, stop_ids=stop_ids)
    lines += [f"generated[{g}]:" + "".join(f" {t}" for t in tokens)
              for g, tokens in enumerate(best)]
    assert lines == run_tfm_run_beam(gpt_gen, prompts, n_new, args)
    power = form == "power"
    for hs, tokens in zip(hypotheses, best):
        assert len(hs) == beam and hs[0].tokens == tokens
        assert [h.score for h in hs] == sorted((h.score for h in hs), reverse=True)
        for h in hs:
            assert len(h.tokens) == n_new or h.tokens[-1] in stop_ids
            # Written out independently of LengthPenalty: the two forms'
            # divisors and their default exponents.
            alpha = (1.0 if power else 0.6) if length_penalty is None else length_penalty
            n = float(len(h.tokens))
            divisor = n ** alpha if power else ((5.0 + n) / 6.0) ** alpha
            assert h.score == pytest.approx(h.sum / divisor, rel=1e-14, abs=0)
    if stops:  # some hypothesis ended early, with a stop id
        assert any(len(h.tokens) < n_new for hs in hypotheses for h in hs)


@pytest.mark.parametrize("length_penalty, form, with_stop", [
    (0.0, "power", False), (1.0, "power", True), (0.0, "power", True), (0.6, "gnmt", True),
    (-1.0, "gnmt", True),
])
def test_beam_search_is_exhaustive_when_wide(gpt_gen: Compiled, gen_model: tfm.Model,
                                            length_penalty: float, form: str,
                                            with_stop: bool) -> None:
    """Two new tokens with B = vocab_size = 64 beams: every first token
    runs, so beam search must find what scoring all 64 x 64 continuations
    (by forward passes, Model.__call__) finds: the best sequence and the
    64 best scores."""
    prompt = gpt_gen.tokens(1, 4, seed=95)[0].tolist()
    first = log_softmax(forward_last(gen_model, prompt))
    batch = np.array([prompt + [a] for a in range(64)], dtype=np.int32)
    second = log_softmax(gen_model(batch)[:, -1])  # [64 first tokens, 64 second]
    # the second likeliest first token ends the sequence: one-token hypotheses
    # compete with two-token ones
    stop = int(np.argsort(first, kind="stable")[-2]) if with_stop else None
    def lp(n: float) -> float:
        return (n if form == "power" else (5.0 + n) / 6.0) ** length_penalty
    scores = {}
    for a in range(64):
        if a == stop:
            scores[(a,)] = first[a] / lp(1.0)
            continue
        for b in range(64):
            scores[(a, b)] = (first[a] + second[a, b]) / lp(2.0)
    best = max(scores, key=lambda k: scores[k])
    hypotheses = beam_search(gen_model, [prompt], 2, beam=64, length_penalty=length_penalty,
                             length_penalty_form=form,
                             stop_ids=[] if stop is None else [stop])[0]
    assert len(hypotheses) == 64
    top = hypotheses[0]
    if len(scores) > 1:
        runner_up = sorted(scores.values())[-2]
        if scores[best] - runner_up > 1e-4:  # clearly the best: the same tokens
            assert tuple(top.tokens) == best
    assert abs(scores[tuple(top.tokens)] - scores[best]) < 1e-5
    for h in hypotheses:
        assert abs(h.score - scores[tuple(h.tokens)]) < 1e-5
    ranked = sorted(scores.values(), reverse=True)[:64]
    np.testing.assert_allclose([h.score for h in hypotheses], ranked, rtol=0, atol=1e-5)
    assert gen_model.generate([prompt], 2, beam=64, length_penalty=length_penalty,
                              length_penalty_form=form,
                              stop_ids=[] if stop is None else [stop]) == [top.tokens]


def test_beam_one_is_greedy(gpt_gen: Compiled, gen_model: tfm.Model) -> None:
    prompts = [[5, 17, 3], [4, 4], [1], gpt_gen.tokens(1, 8, seed=82)[0].tolist()]
    assert gen_model.generate(prompts, 9, beam=1) == gen_model.generate(prompts, 9)
    stops = likely_tokens(gen_model, prompts, 9)
    greedy = gen_model.generate(prompts, 9, stop_ids=stops)
    assert any(len(t) < 9 for t in greedy)
    for lp in (0.0, -1.0):  # a positive length penalty may go on past a stop id
        assert gen_model.generate(prompts, 9, beam=1, stop_ids=stops, length_penalty=lp) == greedy


def test_beam_forms(gen_model: tfm.Model) -> None:
    expected = gen_model.generate([[5, 17, 3], [9, 9, 1]], 4, beam=3)
    assert gen_model.generate(np.array([[5, 17, 3], [9, 9, 1]], np.int16), 4, beam=3) == expected
    assert gen_model.generate([5, 17, 3], 4, beam=np.int64(3)) == expected[:1]
    assert gen_model.generate([[9, 9, 1]], 4, beam=3) == expected[1:]  # alone: the same
    assert gen_model.generate([[5, 17, 3]], 0, beam=3) == [[]]
    assert beam_search(gen_model, [[5, 17, 3]], 0, beam=3) == [[]]
    assert gen_model.generate([], 4, beam=2) == []
    assert len(gen_model.generate([[1] * 16], 1, beam=4)[0]) == 1  # a full prompt
    h = beam_search(gen_model, [[1, 2]], 3, beam=2, length_penalty=0)[0][0]
    assert isinstance(h, Hypothesis) and h.score == h.sum and len(h.tokens) == 3


@pytest.mark.parametrize("kwargs, message", [
    (dict(beam=0), r"^beam is 0, must be at least 1$"),
    (dict(beam=-3), r"^beam is -3, must be at least 1$"),
    (dict(beam=2.0), r"^beam must be an int, got float$"),
    (dict(beam=True), r"^beam must be an int, got bool$"),
    (dict(beam=2, top_k=3), r"^beam cannot be combined with top_k \(beam search keeps the most "
                            r"likely sequences; greedy, top_k, top_p, temperature and seed pick "
                            r"one token at a time\)$"),
    (dict(beam=2, top_p=0.5), r"^beam cannot be combined with top_p"),
    (dict(beam=2, greedy=True), r"^beam cannot be combined with greedy"),
    (dict(beam=2, temperature=0.5), r"^beam cannot be combined with temperature"),
    (dict(beam=2, seed=1), r"^beam cannot be combined with seed"),
    (dict(length_penalty=0.5), r"^length_penalty only applies to beam search: pass beam=B$"),
    (dict(top_k=3, length_penalty=0.5), r"^length_penalty only applies to beam search"),
    (dict(beam=2, length_penalty=float("nan")), r"^length_penalty is nan, must be a finite number$"),
    (dict(beam=2, length_penalty=float("-inf")), r"^length_penalty is -inf, must be a finite"),
    (dict(beam=2, length_penalty="1"), r"^length_penalty must be a number, got str$"),
    (dict(length_penalty_form="power"),
     r"^length_penalty_form only applies to beam search: pass beam=B$"),
    (dict(beam=2, length_penalty_form="hf"),
     r"^length_penalty_form is 'hf', must be 'gnmt' or 'power'$"),
    (dict(beam=2, stop_ids=[64]), r"^stop id 64 is outside \[0, 64\)"),
])
def test_beam_errors(gen_model: tfm.Model, kwargs: Dict[str, Any], message: str) -> None:
    before = gen_model.generate([[5, 17, 3]], 3, beam=2)
    with pytest.raises(tfm.InvalidArgumentError, match=message):
        gen_model.generate([[1]], 2, **kwargs)
    assert gen_model.generate([[5, 17, 3]], 3, beam=2) == before  # still usable


def test_beam_checks_prompts_and_model(gen_model: tfm.Model, gpt_model: tfm.Model) -> None:
    with pytest.raises(tfm.InvalidArgumentError, match=r"\(max_new_tokens 7 at most\)$"):
        gen_model.generate([[1], [1] * 10], 8, beam=2)
    with pytest.raises(tfm.InvalidArgumentError, match=r"^max_new_tokens is -1"):
        gen_model.generate([[1]], -1, beam=2)
    with pytest.raises(tfm.UnsupportedError, match=r"has no generation step"):
        gpt_model.generate([[1, 2]], 3, beam=2)


# ----- the sampler --------------------------------------------------------------

def test_mt19937_64_is_the_standard_one() -> None:
    # C++ [rand.predef]: the 10000th output of a default-constructed
    # mt19937_64 (seed 5489) is 9981545732273789042.
    rng = MT19937_64(5489)
    for _ in range(9999):
        rng.next()
    assert rng.next() == 9981545732273789042
    assert MT19937_64(0).next() == 2947667278772165694  # std::mt19937_64(0)()


def test_sampler_rules() -> None:
    greedy = Sampler()
    assert greedy.greedy
    assert greedy.next(np.array([1, 3, 3, 2], np.float32)) == 1            # lowest id on ties
    assert greedy.next(np.array([np.nan, 0, -1], np.float32)) == 1          # NaN is -inf
    assert greedy.next(np.full(4, -np.inf, np.float32)) == 0
    logits = np.array([0.5, 2.0, 2.0, -1.0, np.nan], np.float32)
    assert Sampler(top_k=1, seed=9).next(logits) == 1                       # top-1 is greedy
    assert Sampler(top_p=1e-9, seed=9).next(logits) == 1
    assert Sampler(top_k=2, seed=3).next(np.array([0, np.inf, 1], np.float32)) == 1
    # the draws: the same seed, the same tokens; each call takes one
    a, b = Sampler(top_p=1.0, seed=42), Sampler(top_p=1.0, seed=42)
    row = np.zeros(64, np.float32)
    draws = [a.next(row) for _ in range(50)]
    assert draws == [b.next(row) for _ in range(50)] and len(set(draws)) > 10
    # u = (x >> 11) * 2**-53 picks the first id whose cumulative mass exceeds u
    x = MT19937_64(42).next()
    assert draws[0] == int((x >> 11) * 2.0**-53 * 64)
