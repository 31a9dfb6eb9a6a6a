"""The host API against the library: round trips bit for bit, files, the warp model, the analyses,
and arrays that cross without copies."""
import json
import re

import numpy as np
import pytest

import warpsparse as ws
from conftest import same_bits, sparse

VALUE_DTYPES = [np.float16, np.uint16, np.float32, np.int8]
VALUE_TYPE = {np.float16: "fp16", np.uint16: "bf16", np.float32: "fp32", np.int8: "int8"}


def without_negative_zeros(a):
    """The zero rule: -0 is zero, stored as nothing and decoded as +0."""
    a = a.copy()
    if a.dtype == np.uint16:
        a[a == 0x8000] = 0
    elif a.dtype.kind == "f":
        a[a == 0] = 0
    return a


@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("delta_bits", [1, 2, 4, 8])
def test_macko_roundtrip_every_type_and_width(rng, dtype, delta_bits):
    a = sparse(rng, (37, 300), 0.2, dtype)
    m = ws.encode_macko(a, delta_bits=delta_bits)
    assert m.shape == a.shape and m.delta_bits == delta_bits and m.value_type == VALUE_TYPE[dtype]
    assert m.nnz == np.count_nonzero(without_negative_zeros(a) if dtype != np.uint16 else a & 0x7FFF)
    assert same_bits(m.to_dense(), without_negative_zeros(a))
    assert same_bits(ws.decode(m), m.to_dense())


def test_macko_auto_delta_width_follows_the_policy(rng):
    # A nonzero every 20 columns: at 4 bits each gap of 19 zeros costs a padding element, so the
    # rows walk twice the element slots; at 8 bits none (macko::choose_delta_bits).
    a = np.zeros((100, 5120), np.float16)
    a[:, 19::20] = rng.standard_normal((100, 256)).astype(np.float16) + np.float16(8)
    m = ws.encode_macko(a, delta_bits="auto", align_rows=True)
    assert m.delta_bits == 8 and same_bits(m.to_dense(), a)
    dense_ish = sparse(rng, (64, 5120), 0.5, np.float16)
    assert ws.encode_macko(dense_ish, delta_bits="auto").delta_bits == 4
    with pytest.raises(ValueError, match="'auto', got 'eight'"):
        ws.encode_macko(a, delta_bits="eight")
    with pytest.raises(ValueError, match="'auto', got 0"):
        ws.encode_macko(a, delta_bits=0)
    for bad in (None, 4.0, True, 2**70, -4):
        with pytest.raises(ValueError, match=f"'auto', got {re.escape(repr(bad))}$"):
            ws.encode_macko(a, delta_bits=bad)
    assert ws.encode_macko(a, delta_bits=np.int64(8)).delta_bits == 8


@pytest.mark.parametrize("options", [dict(align_rows=True), dict(emit_trailing_padding=True),
                                     dict(force_wide_row_pointers=True)])
def test_macko_options_keep_the_matrix(rng, options):
    a = sparse(rng, (50, 129), 0.4, np.float16)
    m = ws.encode_macko(a, **options)
    assert same_bits(m.to_dense(), without_negative_zeros(a))
    if options.get("force_wide_row_pointers"):
        assert m.wide_row_pointers and m.row_ptr.dtype == np.uint64


def test_negative_zero_is_dropped():
    a = np.array([[0.0, -0.0, 1.5, 0.0]], dtype=np.float16)
    m = ws.encode_macko(a)
    assert m.nnz == 1
    assert same_bits(m.to_dense(), np.array([[0, 0, 1.5, 0]], dtype=np.float16))


def test_macko_arrays_are_views_of_the_matrix(rng):
    m = ws.encode_macko(sparse(rng, (20, 64), 0.5, np.float16))
    values, deltas, row_ptr = m.values, m.deltas, m.row_ptr
    for arr in (values, deltas, row_ptr):
        assert arr.base is m  # no copy: the Macko object owns the bytes
        assert not arr.flags.writeable
    assert np.shares_memory(values, m.values)
    assert row_ptr[0] == 0 and row_ptr[-1] == m.emitted
    assert values.size * 2 + deltas.size + row_ptr.size * 4 == m.storage_bytes


def test_decoded_array_owns_its_buffer_without_copy(rng):
    d = ws.encode_macko(sparse(rng, (8, 16), 0.5, np.float32)).to_dense()
    assert not d.flags.owndata and d.base is not None  # wraps the C++ vector
    d[0, 0] = 7  # a fresh array: writable


def test_non_contiguous_input_is_copied_in_c_order(rng):
    a = sparse(rng, (40, 24), 0.5, np.float16)
    m = ws.encode_macko(a.T)  # Fortran order
    assert m.shape == (24, 40)
    assert same_bits(m.to_dense(), without_negative_zeros(np.ascontiguousarray(a.T)))
    s = ws.encode_macko(a[::2, ::3])
    assert same_bits(s.to_dense(), without_negative_zeros(np.ascontiguousarray(a[::2, ::3])))


@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("index_bits", [32, 16])
def test_csr_roundtrip(rng, dtype, index_bits):
    a = sparse(rng, (30, 70), 0.3, dtype)
    c = ws.encode_csr(a, index_bits=index_bits)
    assert c.index_bits == index_bits and c.col.dtype == (np.int32 if index_bits == 32 else np.uint16)
    assert c.nnz == c.val.size and c.row_ptr[-1] == c.nnz
    assert same_bits(c.to_dense(), without_negative_zeros(a))
    assert c.val.base is c


@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_sparse24_roundtrip_after_pruning(rng, dtype):
    a = sparse(rng, (70, 100), 1.0, dtype)
    p = ws.prune(a, nm="2:4")
    assert (np.count_nonzero(p.reshape(70, 25, 4), axis=2) <= 2).all()
    s = ws.encode_sparse24(p)
    assert s.shape == (70, 100) and s.padded_shape[0] % 128 == 0 and s.padded_shape[1] % 64 == 0
    assert s.values.shape == (s.padded_shape[0], s.padded_shape[1] // 2)
    assert s.metadata.dtype == np.uint16 and s.metadata.base is s
    assert same_bits(s.to_dense(), without_negative_zeros(p))


def test_sparse24_refuses_a_dense_group(rng):
    with pytest.raises(ws.Error, match="2:4 allows 2"):
        ws.encode_sparse24(np.ones((4, 8), dtype=np.float16))


def test_prune_keeps_the_largest_per_row(rng):
    a = sparse(rng, (16, 200), 1.0, np.float32)
    p = ws.prune(a, density=0.25)
    assert (np.count_nonzero(p, axis=1) == 50).all()
    kept_min = np.where(p != 0, np.abs(a), np.inf).min(axis=1)
    dropped_max = np.where(p == 0, np.abs(a), 0).max(axis=1)
    assert (kept_min >= dropped_max).all()
    t = ws.prune(a, density=0.25, per="tensor")
    assert np.count_nonzero(t) == 800


# ----- files ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_macko_file_roundtrip(tmp_path, rng, dtype):
    m = ws.encode_macko(sparse(rng, (33, 90), 0.3, dtype), delta_bits=2)
    ws.write_macko(str(tmp_path / "a.macko"), m)
    r = ws.read_macko(str(tmp_path / "a.macko"))
    for name in ("values", "deltas", "row_ptr"):
        assert same_bits(getattr(r, name), getattr(m, name))
    assert (r.shape, r.nnz, r.delta_bits, r.value_type) == (m.shape, m.nnz, m.delta_bits, m.value_type)


def test_macko_safetensors_roundtrip(tmp_path, rng):
    m = ws.encode_macko(sparse(rng, (12, 40), 0.5, np.uint16))
    path = str(tmp_path / "a.safetensors")
    ws.write_macko_safetensors(path, m, {"source": "test"})
    r = ws.read_macko(path)
    assert same_bits(r.to_dense(), m.to_dense())
    f = ws.open_tensor_file(path)
    assert f.metadata["warpsparse.format"] == "macko" and f.metadata["source"] == "test"
    names = {t["name"] for t in f.tensors}
    assert names == {"values", "deltas", "row_ptr"}
    assert same_bits(f.array("deltas"), m.deltas)


def test_sparse24_safetensors_roundtrip(tmp_path, rng):
    s = ws.encode_sparse24(ws.prune(sparse(rng, (20, 64), 1.0, np.float16), nm="2:4"))
    path = str(tmp_path / "s.safetensors")
    ws.write_sparse24_safetensors(path, s)
    r = ws.read_sparse24(path)
    assert same_bits(r.values, s.values) and same_bits(r.metadata, s.metadata)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8])
def test_matrix_market_roundtrip(tmp_path, rng, dtype):
    a = sparse(rng, (9, 14), 0.4, dtype)
    path = str(tmp_path / "a.mtx")
    ws.write_matrix_market(path, a)
    rows = ws.read_matrix_market(path, VALUE_TYPE[dtype])
    assert rows.shape == a.shape and rows.nnz == np.count_nonzero(a)
    assert same_bits(rows.to_dense(), without_negative_zeros(a))
    assert rows.row_ptr.dtype == np.int64 and rows.col.base is rows
    assert same_bits(ws.encode_macko(rows).to_dense(), rows.to_dense())


def test_tensor_file_npy(tmp_path, rng):
    a = sparse(rng, (6, 10), 0.5, np.float32)
    path = str(tmp_path / "w.npy")
    np.save(path, a)
    f = ws.open_tensor_file(path)
    assert f.tensors[0]["shape"] == (6, 10)
    view = f.array()
    assert np.array_equal(view, a) and view.base is f  # mapped, not copied
    assert same_bits(f.rows().to_dense(), without_negative_zeros(a))
    assert same_bits(f.rows(transpose=True).to_dense(), without_negative_zeros(np.ascontiguousarray(a.T)))
    assert f.rows(value_type="fp16").value_type == "fp16"
    np.save(path, np.asfortranarray(a))
    assert np.array_equal(ws.open_tensor_file(path).array(), a)


# ----- the warp model and analyses -------------------------------------------------------------

@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("batch", [1, 4])
def test_verify_passes(rng, dtype, batch):
    m = ws.encode_macko(sparse(rng, (40, 256), 0.3, dtype))
    r = ws.verify(m, seed=3, batch=batch)
    assert r["ok"] and r["failures"] == 0 and r["fault"] == "" and r["schedules"] == 4
    assert 0 <= r["max_bound_ratio"] <= 1


@pytest.mark.parametrize("batch, lines", [(1, 8), (4, 32)])
def test_verify_counts_the_loads_of_x(rng, batch, lines):
    # Full 2:4 rows of 512 columns fill whole steps of 256 elements; a lane's 8 elements lie in 16
    # adjacent columns, so each of a row's 8 loads of x touches 32 sectors, one per lane, in 8 lines
    # (4 vectors: a line per lane).
    a = np.zeros((2, 512), np.float16)
    a[:, 0::4] = rng.uniform(0.5, 1.0, (2, 128))
    a[:, 2::4] = -rng.uniform(0.5, 1.0, (2, 128))
    r = ws.verify(ws.encode_macko(a), batch=batch)
    assert r["ok"]
    assert r["loads"]["x"] == {"loads": 16, "sectors": 16 * 32, "lines": 16 * lines}
    # values: one 16-byte load a lane per row (its 8 elements), 512 bytes in 16 sectors
    assert r["loads"]["values"] == {"loads": 2, "sectors": 2 * 16, "lines": 2 * 4}
    assert set(r["loads"]) == {"values", "deltas", "row_ptr", "x"}


def test_model_within_its_bound_of_the_oracle(rng):
    a = sparse(rng, (64, 512), 0.5, np.float16)
    m = ws.encode_macko(a)
    x = rng.standard_normal((512, 4)).astype(np.float16)
    y = ws.spmv_model(m, x)
    assert y.dtype == np.float32 and y.shape == (64, 4)
    exact, bound = ws.macko_oracle_bound(m, x)
    assert np.allclose(exact, a.astype(np.float64) @ x.astype(np.float64), rtol=1e-12, atol=1e-12)
    assert (np.abs(y - exact) <= bound).all()
    # batches give each column a batch-1 product's bits
    for b in range(4):
        assert same_bits(ws.spmv_model(m, np.ascontiguousarray(x[:, b])), np.ascontiguousarray(y[:, b]))
    y16 = ws.spmv_model(m, x, out_dtype=np.float16)
    assert y16.dtype == np.float16


def test_model_epilogue_and_named_schedule(rng):
    m = ws.encode_macko(sparse(rng, (16, 64), 0.5, np.float16))
    x = rng.standard_normal(64).astype(np.float16)
    y0 = rng.standard_normal(16).astype(np.float32)
    y = ws.spmv_model(m, x, alpha=2.0, beta=0.5, y=y0)
    assert not same_bits(y, ws.spmv_model(m, x))
    named = ws.spmv_model(m, x, schedule="acc=4")
    assert named.shape == (16,)


def test_plan_names_a_compiled_schedule(rng):
    m = ws.encode_macko(sparse(rng, (256, 4096), 0.5, np.float16))
    for batch in ws.compiled_batches():
        p = ws.plan(m, gpu="h100", batch=batch)
        assert p["why"] and (batch == 1 or f"batch={batch}" in p["schedule"])
        ws.spmv_model(m, np.zeros((4096, batch) if batch > 1 else 4096, np.float16), schedule=p["schedule"])
    assert ws.compiled_batches() == [1, 2, 4, 8]


def test_effd_and_crossovers():
    e = ws.effd(0.5, value_bits=16, delta_bits=4)
    assert e["dense"] == 1.0 and e["MACKO best"] < e["MACKO expected"] <= e["MACKO worst"]
    bounded = ws.effd(0.5, rows=4096, cols=4096)
    assert bounded["MACKO expected"] > e["MACKO expected"]  # row pointers and alignment are kept
    rows = ws.crossovers()
    assert rows and all({"name", "scenario", "found", "density", "verdict"} <= set(r) for r in rows)
    assert any(r["found"] and 0 < r["density"] <= 1 for r in rows)


def test_analyze_a_checkpoint(tmp_path, rng):
    path = str(tmp_path / "w.npy")
    np.save(path, ws.prune(sparse(rng, (64, 128), 1.0, np.float16), nm="2:4"))
    a = ws.analyze(path, threads=1)
    t = a["tensors"][0]
    assert t["rows"] == 64 and t["cols"] == 128 and t["nm"] == "2:4"
    assert "totals" in a
    json.dumps(a)


# ----- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [np.zeros((3, 3), np.float64), np.zeros((3, 3), np.int32), np.zeros((3, 3), np.bool_)])
def test_bad_dtype_is_a_value_error(bad):
    with pytest.raises(ValueError, match="dtype"):
        ws.encode_macko(bad)


@pytest.mark.parametrize("shape", [(5,), (2, 3, 4), ()])
def test_a_matrix_is_two_dimensional(shape):
    with pytest.raises(ValueError, match="2-D"):
        ws.encode_macko(np.zeros(shape, np.float16))
    with pytest.raises(ValueError, match="2-D"):
        ws.encode_sparse24(np.zeros(shape, np.float16))


def test_bad_arguments_name_the_problem(rng):
    a = sparse(rng, (4, 16), 0.5, np.float16)
    with pytest.raises(ws.Error, match="delta bits must be 1, 2, 4 or 8, got 3"):
        ws.encode_macko(a, delta_bits=3)
    with pytest.raises(ValueError, match="index bits"):
        ws.encode_csr(a, index_bits=8)
    with pytest.raises(ValueError, match="N:M"):
        ws.prune(a, nm="4:2")
    m = ws.encode_macko(a)
    with pytest.raises(ValueError, match="cols = 16"):
        ws.spmv_model(m, np.zeros(15, np.float16))
    with pytest.raises(ValueError, match="must be fp16"):
        ws.spmv_model(m, np.zeros(16, np.float32))
    with pytest.raises(ws.Error, match="schedule field 'bogus'"):
        ws.spmv_model(m, np.zeros(16, np.float16), schedule="bogus")
    with pytest.raises(ValueError, match="multiplies 4 vectors"):
        ws.spmv_model(m, np.zeros(16, np.float16), schedule="batch=4")
    with pytest.raises(ws.Error, match="unknown GPU"):
        ws.plan(m, gpu="tpu")


def test_out_of_range_arguments_are_refused_not_wrapped(rng, tmp_path):
    # Each of these once crashed, wrapped a number silently, or answered from the wrong bits.
    a = sparse(rng, (8, 16), 0.5, np.float16)
    m = ws.encode_macko(a)
    x = np.ones(16, np.float16)
    with pytest.raises(ValueError, match="multiplies 1, 2, 4 or 8"):
        ws.spmv_model(m, np.ones((16, 3), np.float16))
    m0 = ws.encode_macko(np.zeros((4, 0), np.float16))  # no columns: x of any batch holds no bytes
    for batch in (16, 2**31, 2**32 + 1):
        with pytest.raises(ValueError, match="multiplies 1, 2, 4 or 8"):
            ws.spmv_model(m0, np.zeros((0, batch), np.float16))
        with pytest.raises(ValueError, match="multiplies 1, 2, 4 or 8"):
            ws.macko_oracle_bound(m0, np.zeros((0, batch), np.float16))
    for batch in (0, 3, 100, -3):
        with pytest.raises(ws.Error, match="1, 2, 4 or 8 vectors"):
            ws.plan(m, batch=batch)
    with pytest.raises(ws.Error, match="nothing would be checked"):
        ws.verify(m, accumulators=[])
    with pytest.raises(ws.Error, match="batch must be 1, 2, 4 or 8, not -1"):
        ws.verify(m, batch=-1)
    with pytest.raises(ws.Error, match="accumulators per lane must be 1, 2, 4 or 8, not 3"):
        ws.verify(m, accumulators=[3])
    with pytest.raises(ws.Error, match="KEY=INTEGER"):
        ws.spmv_model(m, x, schedule="bpsm=99999999999")
    with pytest.raises(ValueError, match="out_dtype is float32 or the input type fp16"):
        ws.macko_oracle_bound(m, x, out_dtype="float64")
    with pytest.raises(ValueError, match="chain must be"):
        ws.macko_oracle_bound(m, x, chain=-5)
    # with a chain given, the oracle takes any number of vectors (a layer's tokens)
    exact, _ = ws.macko_oracle_bound(m, np.ones((16, 6), np.float16), chain=16)
    assert exact.shape == (8, 6)
    _, bound = ws.macko_oracle_bound(m, x, chain=2**24)  # no bound that long: infinite, never negative
    assert np.isinf(bound).all()
    s = ws.encode_sparse24(ws.prune(a, nm="2:4"))
    with pytest.raises(ValueError, match="out_dtype"):
        ws.sparse24_oracle_bound(s, np.ones((16, 2), np.float16), out_dtype="int8")
    s0 = ws.encode_sparse24(np.zeros((4, 0), np.float16))
    with pytest.raises(ValueError, match="more than the GEMM's int n"):
        ws.sparse24_oracle_bound(s0, np.zeros((0, 2**32 + 5), np.float16))
    with pytest.raises(ws.Error, match="memory budget"):
        ws.sparse24_oracle_bound(s0, np.zeros((0, 2**31 - 1), np.float16))
    for nm in ("2:4294967300", "4294967298:4294967300", "2:4x", "1:3"):
        with pytest.raises(ValueError, match="N:M"):
            ws.prune(a, nm=nm)
    with pytest.raises(ws.Error, match="density must lie in"):
        ws.prune(a, 5.0, nm="2:4")
    path = str(tmp_path / "a.macko")
    ws.write_macko(path, m)
    with pytest.raises(ws.Error, match="NUL byte"):
        ws.read_macko(path + "\0garbage")
    with pytest.raises(ws.Error, match="NUL byte"):
        ws.write_macko(str(tmp_path / "b.macko") + "\0.txt", m)
    with pytest.raises(ValueError, match="numeric"):
        ws.encode_macko(None)


def test_big_endian_input_is_read_by_value(rng):
    a = sparse(rng, (8, 16), 0.5, np.float16)
    assert np.array_equal(ws.encode_macko(a.astype(">f2")).to_dense(), a)
    assert np.array_equal(ws.prune(a.astype(">f4"), 1.0), a.astype(np.float32))
    m = ws.encode_macko(a)
    x = rng.standard_normal(16).astype(np.float16)
    assert same_bits(ws.spmv_model(m, x.astype(">f2")), ws.spmv_model(m, x))


def test_missing_file_is_file_not_found(tmp_path):
    for read in (ws.read_macko, ws.read_sparse24, ws.open_tensor_file, ws.analyze):
        with pytest.raises(FileNotFoundError, match="no such file"):
            read(str(tmp_path / "missing"))


def test_corrupt_macko_bytes_are_an_error_not_a_crash(tmp_path, rng):
    m = ws.encode_macko(sparse(rng, (10, 50), 0.5, np.float16))
    path = tmp_path / "a.macko"
    ws.write_macko(str(path), m)
    good = path.read_bytes()
    cases = {
        "magic": b"XX" + good[2:],
        "truncated": good[: len(good) // 2],
        "checksum": good[:-1] + bytes([good[-1] ^ 0xFF]),
        "delta bits": good[:13] + bytes([3]) + good[14:],
        "empty": b"",
    }
    for name, data in cases.items():
        path.write_bytes(data)
        with pytest.raises(ws.Error) as e:
            ws.read_macko(str(path))
        assert str(path) in str(e.value) or "<" in str(e.value), name
        assert str(e.value), name


def test_corrupt_safetensors_and_matrix_market(tmp_path):
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{\"a\":1}")
    with pytest.raises(ws.Error):
        ws.open_tensor_file(str(bad))
    mtx = tmp_path / "bad.mtx"
    mtx.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n")
    with pytest.raises(ws.Error, match="bad.mtx:3"):
        ws.read_matrix_market(str(mtx))


def test_error_is_a_runtime_error():
    assert issubclass(ws.Error, RuntimeError)


def test_cuda_without_a_device_says_so():
    if ws.cuda.available():
        pytest.skip("a device is present")
    assert ws.cuda.device_count() == 0
    with pytest.raises((ws.Error, RuntimeError)):
        ws.cuda.upload_macko(ws.encode_macko(np.eye(4, dtype=np.float16)))


def test_stream_handles():
    class TorchLike:
        cuda_stream = 1234

    class CupyLike:
        ptr = 99

    assert ws.cuda.stream_handle(None) == 0 and ws.cuda.stream_handle(7) == 7
    assert ws.cuda.stream_handle(TorchLike()) == 1234 and ws.cuda.stream_handle(CupyLike()) == 99
    with pytest.raises(TypeError, match="stream"):
        ws.cuda.stream_handle("default")


def test_dlpack_refuses_what_the_kernels_cannot_take():
    # The checks run before any launch, so they are tested without a device.
    with pytest.raises(TypeError, match="__dlpack__"):
        ws.cuda.dlpack_view(object())
    with pytest.raises(ValueError, match="CPU"):
        ws.cuda.dlpack_view(np.zeros(4, np.float16))  # numpy exports host memory


def test_device_arrays_refuse_other_dtypes():
    with pytest.raises(ValueError, match="float16, bfloat16 or float32"):
        ws.cuda.empty((4,), "int32")


@pytest.mark.parametrize("dtype", [np.float16, np.uint16, np.float32])
@pytest.mark.parametrize("shape", [(1, 1), (17, 33), (64, 300), (5, 16)])
def test_bitmap_roundtrip(rng, dtype, shape):
    a = sparse(rng, shape, 0.4, dtype)
    b = ws.encode_bitmap(a)
    assert b.shape == a.shape and b.value_type == VALUE_TYPE[dtype]
    assert b.nnz == np.count_nonzero(without_negative_zeros(a) if dtype != np.uint16 else a & 0x7FFF)
    assert b.storage_bytes > 0 and b.effective_density > 0
    assert same_bits(b.to_dense(), without_negative_zeros(a))
    assert same_bits(ws.decode(b), b.to_dense())


def test_bitmap_safetensors_roundtrip(tmp_path, rng):
    a = sparse(rng, (40, 70), 0.3, np.uint16)
    b = ws.encode_bitmap(a)
    path = str(tmp_path / "b.safetensors")
    ws.write_bitmap_safetensors(path, b, {"source": "test"})
    back = ws.read_bitmap(path)
    assert back.shape == b.shape and back.nnz == b.nnz and back.value_type == "bf16"
    assert same_bits(back.to_dense(), b.to_dense())
    with pytest.raises(ws.Error, match="warpsparse.format is 'bitmap', expected 'sparse24'"):
        ws.read_sparse24(path)


def test_bitmap_refuses_int8(rng):
    with pytest.raises(ValueError, match="int8"):
        ws.encode_bitmap(sparse(rng, (16, 16), 0.5, np.int8))


def test_batch_kernel_follows_the_policy():
    assert ws.bitmap_max_batch() == 16
    # MACKO has no kernel above 8 vectors; at few vectors MACKO streams fewer instructions per tile.
    assert ws.batch_kernel(0.5, 12)[0] == "bitmap"
    kernel, macko_batch, why = ws.batch_kernel(0.5, 2)
    assert kernel == "macko" and macko_batch == 2 and "batch 2 < 5" in why
    kernel, macko_batch, why = ws.batch_kernel(0.05, 3)
    assert kernel == "macko" and macko_batch == 4 and "runs as 4" in why
    # Dense enough and 8 vectors: the tensor cores; sparse: MACKO, whose time falls with the nonzeros.
    assert ws.batch_kernel(0.9, 8)[0] == "bitmap" and ws.batch_kernel(0.05, 8)[0] == "macko"
    # A weight held as 2:4 too: the 2:4 GEMM from 3 vectors at d >= 0.45, where it was measured.
    assert [ws.batch_kernel(0.5, b, sparse24=True)[0] for b in (1, 2, 3, 8, 16)] == ["macko"] * 2 + ["sparse24"] * 3
    assert ws.batch_kernel(0.1, 8, sparse24=True)[0] == "macko"
    # ... and from 2 where MACKO's 2-vector schedule gathers x through L1.
    assert ws.batch_kernel(0.5, 2, sparse24=True, macko_x_l1=True)[0] == "sparse24"
    assert ws.batch_kernel(0.5, 1, sparse24=True, macko_x_l1=True)[0] == "macko"
    for bad in [(0.5, 0), (0.5, 17), (-0.1, 4), (1.5, 4)]:
        with pytest.raises(ValueError):
            ws.batch_kernel(*bad)


def test_rows_from_dense_refuses_columns_past_32_bit_indices():
    # No bytes, but 2^31 columns: column indices would wrap, so the shape is refused.
    with pytest.raises(ws.Error, match="column indices are 32-bit"):
        ws.rows_from_dense(np.zeros((0, 2**31), np.float32))
