"""tfm.Model: forward passes against the float64 reference and tfm-run,
input conversion, threads, life cycle."""

from __future__ import annotations

import shutil
import subprocess
import threading

import numpy as np
import pytest

import tfm
import tfm_ref  # on sys.path through conftest
from conftest import Compiled, assert_close_to_reference, reference


def test_decoder_ragged_batch_matches_reference(gpt: Compiled, gpt_model: tfm.Model) -> None:
    ids = gpt.tokens(3, 10, seed=5)
    lengths = np.array([10, 4, 1], dtype=np.int32)
    logits = gpt_model(ids, lengths)
    assert logits.shape == (3, 10, 64) and logits.dtype == np.float32
    assert_close_to_reference(logits, reference(gpt.spec, gpt.weights, ids, lengths), lengths)


def test_decoder_full_batch_matches_reference(gpt: Compiled, gpt_model: tfm.Model) -> None:
    ids = gpt.tokens(2, 16, seed=6)  # seq == max_seq_len
    assert_close_to_reference(gpt_model(ids), reference(gpt.spec, gpt.weights, ids))


def test_padding_does_not_change_valid_rows(gpt: Compiled, gpt_model: tfm.Model) -> None:
    ids = gpt.tokens(1, 5, seed=7)
    alone = gpt_model(ids)
    padded = np.concatenate([ids, np.full((1, 6), 63, np.int32)], axis=1)
    batch = np.concatenate([padded, gpt.tokens(1, 11, seed=8)])
    out = gpt_model(batch, [5, 11])
    np.testing.assert_allclose(out[0, :5], alone[0], rtol=1e-5, atol=1e-5)


def test_left_padding_with_attention_mask(gpt: Compiled, gpt_model: tfm.Model) -> None:
    # Hugging Face's inputs: a left-padded row and a right-padded one.
    ids = gpt.tokens(2, 9, seed=21)
    mask = np.array([[0, 0, 0, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 0, 0, 0, 0]])
    out = gpt_model(ids, attention_mask=mask)
    m = tfm_ref.load_model(str(gpt.spec))
    params = tfm_ref.Params(tfm_ref.logical_weights(
        m, tfm_ref.read_safetensors(str(gpt.weights)), str(gpt.weights)))
    ref = np.array(tfm_ref.forward_masked(m, params, ids.tolist(), mask.tolist()))
    assert_close_to_reference(out, ref, [[bool(v) for v in r] for r in mask])
    assert not out[mask == 0].any()  # zeros under the padding
    # generate()'s positions (cumsum - 1): the left-padded row computes what
    # the same tokens alone do.
    positions = np.maximum(np.cumsum(mask, axis=1) - 1, 0)
    shifted = gpt_model(ids, attention_mask=mask, position_ids=positions)
    np.testing.assert_allclose(shifted[0, 3:], gpt_model(ids[:1, 3:])[0], rtol=1e-5,
                               atol=1e-5)
    # A boolean mask (ids != pad) is taken as 0/1.
    np.testing.assert_array_equal(gpt_model(ids, attention_mask=mask.astype(bool)), out)
    with pytest.raises(tfm.InvalidArgumentError, match=r"attention_mask\[0\]\[4\] is 0 between 1s"):
        gpt_model(ids, attention_mask=[[1, 1, 1, 1, 0, 1, 1, 1, 1]] * 2)
    with pytest.raises(tfm.InvalidArgumentError, match="describe the same padding"):
        gpt_model(ids, [9, 5], attention_mask=mask)
    with pytest.raises(tfm.InvalidArgumentError, match=r"attention_mask has shape \[1, 9\]"):
        gpt_model(ids, attention_mask=mask[:1])


def test_classifier_matches_reference(bert_classifier: Compiled) -> None:
    ids = bert_classifier.tokens(3, 12, seed=9)
    lengths = [12, 7, 2]
    with tfm.Model(bert_classifier.library, bert_classifier.weights) as model:
        scores = model(ids, lengths)
        assert model.info["output"] == "classes"
    assert scores.shape == (3, 3)
    assert_close_to_reference(scores, reference(bert_classifier.spec, bert_classifier.weights,
                                                ids, lengths))


def test_seq2seq_matches_reference(seq2seq: Compiled) -> None:
    src, tgt = seq2seq.tokens(2, 9, seed=10), seq2seq.tokens(2, 6, seed=11)
    src_len, tgt_len = [9, 3], [6, 2]
    with tfm.Model(seq2seq.library, seq2seq.weights) as model:
        assert model.info["architecture"] == "encoder_decoder"
        out = model.seq2seq(src, tgt, src_len, tgt_len)
        with pytest.raises(tfm.UnsupportedError, match="encoder_decoder: call tfm_model_forward_seq2seq"):
            model(src)
        with pytest.raises(tfm.InvalidArgumentError, match="batch must match"):
            model.seq2seq(src, tgt[:1])
    assert out.shape == (2, 6, 64)
    assert_close_to_reference(out, reference(seq2seq.spec, seq2seq.weights, src, src_len,
                                             tgt, tgt_len), tgt_len)


def test_same_bits_as_tfm_run(gpt: Compiled, gpt_model: tfm.Model, tmp_path) -> None:
    ids = gpt.tokens(2, 7, seed=12)
    lengths = np.array([7, 3], dtype=np.int32)
    np.save(tmp_path / "ids.npy", ids)
    np.save(tmp_path / "len.npy", lengths)
    subprocess.run([tfm.find_tool("tfm-run"), gpt.library, "--weights", str(gpt.weights),
                    "--tokens", str(tmp_path / "ids.npy"), "--lengths", str(tmp_path / "len.npy"),
                    "--out", str(tmp_path / "out.npy")], check=True, capture_output=True)
    assert np.array_equal(gpt_model(ids, lengths), np.load(tmp_path / "out.npy"))


@pytest.mark.parametrize("convert", [
    lambda a: a.tolist(),                                   # nested lists
    lambda a: a.astype(np.int64),                           # another width
    lambda a: a.astype(np.uint8),
    lambda a: a.astype(">i4"),                              # big-endian
    lambda a: np.asfortranarray(a),                         # column-major
    lambda a: np.repeat(a, 2, axis=-1)[..., ::2],           # strided view
], ids=["list", "int64", "uint8", "big-endian", "fortran", "strided"])
def test_any_integer_array_like(gpt: Compiled, gpt_model: tfm.Model, convert) -> None:
    ids = gpt.tokens(2, 6, seed=13)
    expected = gpt_model(ids, [6, 2])
    assert np.array_equal(gpt_model(convert(ids), convert(np.array([6, 2], np.int32))), expected)


def test_int32_contiguous_input_is_not_copied() -> None:
    from tfm._model import _int32_array
    ids = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert _int32_array(ids, "tokens", "[batch, seq]", 2) is ids
    assert _int32_array(ids.astype(np.int64), "tokens", "[batch, seq]", 2) is not ids


def test_out_buffer(gpt: Compiled, gpt_model: tfm.Model) -> None:
    ids = gpt.tokens(2, 4, seed=14)
    out = np.full((2, 4, 64), np.nan, dtype=np.float32)
    assert gpt_model(ids, out=out) is out
    assert np.array_equal(out, gpt_model(ids))
    for bad in (np.empty((2, 4, 63), np.float32), np.empty((2, 4, 64), np.float64),
                np.empty((2, 64, 4), np.float32).transpose(0, 2, 1)):
        with pytest.raises(tfm.InvalidArgumentError, match="out"):
            gpt_model(ids, out=bad)


def test_threads_do_not_change_results(gpt: Compiled) -> None:
    ids = gpt.tokens(4, 16, seed=15)
    with tfm.Model(gpt.library, gpt.weights, threads=1) as one, \
            tfm.Model(gpt.library, gpt.weights, threads=2) as two:
        assert one.threads == 1 and two.threads == 2
        assert np.array_equal(one(ids), two(ids))
        two.threads = 0
        assert two.threads >= 1


def test_concurrent_calls_on_one_instance(gpt: Compiled, gpt_model: tfm.Model) -> None:
    inputs = [gpt.tokens(2, 8, seed=s) for s in range(8)]
    expected = [gpt_model(x) for x in inputs]
    results: dict = {}

    def work(i: int) -> None:
        results[i] = gpt_model(inputs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.array_equal(results[i], expected[i]) for i in range(len(inputs)))


def test_close_while_other_threads_run(gpt: Compiled) -> None:
    model = tfm.Model(gpt.library, gpt.weights)
    ids = gpt.tokens(256, 16, seed=19)
    outcomes: list = []
    started = threading.Barrier(5)

    def work() -> None:
        started.wait()
        for _ in range(20):
            try:
                outcomes.append(model(ids).shape)
            except tfm.Error as e:
                outcomes.append(str(e))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    started.wait()
    model.close()  # destroys the model once the running calls are done
    for t in threads:
        t.join()
    assert len(outcomes) == 80
    assert all(o == (256, 16, 64) or o.endswith("the model is closed") for o in outcomes)
    assert model._handle is None


def test_info_and_library_info(gpt: Compiled, gpt_model: tfm.Model) -> None:
    info = gpt_model.info
    assert info == tfm.library_info(gpt.library)
    assert (info["format"], info["model_name"], info["architecture"]) == \
        ("tfm-manifest/1", "tiny-gpt-decoder", "decoder")
    assert (info["vocab_size"], info["max_seq_len"], info["output"]) == (64, 16, "logits")
    assert {"name": "embed.tokens", "shape": [64, 32]} in info["weights"]
    info["vocab_size"] = 0  # a copy
    assert gpt_model.info["vocab_size"] == 64
    assert gpt_model.output_shape(3, 5) == (3, 5, 64)
    assert "tiny-gpt-decoder" in repr(gpt_model)


def test_close_and_context_manager(gpt: Compiled) -> None:
    model = tfm.Model(gpt.library, gpt.weights)
    ids = gpt.tokens(1, 3, seed=16)
    model(ids)
    model.close()
    model.close()  # twice is fine
    with pytest.raises(tfm.Error, match="closed"):
        model(ids)
    with pytest.raises(tfm.Error, match="closed"):
        model.threads
    with tfm.Model(gpt.library, gpt.weights) as m2:
        m2(ids)
    with pytest.raises(tfm.Error, match="closed"):
        m2(ids)


def test_recompiled_library_at_the_same_path_is_reloaded(gpt: Compiled, bert_classifier: Compiled,
                                                         tmp_path) -> None:
    # dlopen would hand back the library first loaded under this path.
    path = tmp_path / "model.so"
    shutil.copyfile(gpt.library, path)
    assert tfm.library_info(path)["model_name"] == "tiny-gpt-decoder"
    path.unlink()
    shutil.copyfile(bert_classifier.library, path)
    assert tfm.library_info(path)["model_name"] == "tiny-bert-classifier"
    with tfm.Model(path, bert_classifier.weights) as model:
        assert model(bert_classifier.tokens(1, 4, seed=17)).shape == (1, 3)


def test_compile_options_and_embedded_weights(gpt: Compiled, tmp_path) -> None:
    lib = tfm.compile(gpt.spec, tmp_path / "embedded.so", dump_ir_dir=tmp_path / "ir",
                      extra_args=["--weights", str(gpt.weights), "--embed-weights"])
    assert lib == str(tmp_path / "embedded.so") and (tmp_path / "embedded.h").is_file()
    assert "00-input.mlir" in (tmp_path / "ir" / "index.txt").read_text()
    ids = gpt.tokens(1, 4, seed=1)
    with tfm.Model(lib) as embedded, tfm.Model(gpt.library, gpt.weights) as external:
        assert np.array_equal(embedded(ids), external(ids))


def test_cuda_model_runs_or_says_why_not(gpt: Compiled, gpt_model: tfm.Model, tmp_path) -> None:
    # Compiles without a GPU; creating it needs an NVIDIA driver and device.
    library = tfm.compile(gpt.spec, tmp_path / "gpu.so", target="nvptx")
    assert tfm.library_info(library)["device"] == "cuda"
    ids = gpt.tokens(2, 8, seed=18)
    try:
        model = tfm.Model(library, gpt.weights)
    except tfm.UnsupportedError as e:
        assert "cannot run CUDA model 'tiny-gpt-decoder'" in str(e)
        return
    with model:
        np.testing.assert_allclose(model(ids), gpt_model(ids), rtol=1e-4, atol=1e-4)
