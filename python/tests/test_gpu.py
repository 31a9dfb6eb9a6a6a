"""On a CUDA device with torch: the kernels through DLPack equal the C++ warp model bit for bit,
torch's dense matmul and to_sparse_semi_structured agree within the derived bounds, and the torch
ops survive torch.compile(fullgraph=True) and CUDA-graph capture. Skipped without torch or a device."""
import os

import numpy as np
import pytest

import warpsparse as ws
from conftest import same_bits, sparse

pytestmark = pytest.mark.gpu
# WS_REQUIRE_GPU=1 (the device machine's run): a missing torch, device or CUDA build fails instead
# of skipping, so a run in which no GPU test ran cannot look green.
_require = os.environ.get("WS_REQUIRE_GPU") == "1"
try:
    import torch
except ImportError:
    if _require:
        raise
    pytest.skip("torch is not installed", allow_module_level=True)
if not (torch.cuda.is_available() and ws.cuda.available()):
    if _require:
        raise RuntimeError(f"WS_REQUIRE_GPU=1, but torch.cuda.is_available() = {torch.cuda.is_available()} "
                           f"and warpsparse.cuda.available() = {ws.cuda.available()}")
    pytest.skip("no CUDA device (or warpsparse built without CUDA)", allow_module_level=True)
import warpsparse.torch as wt  # noqa: E402

# The tensor cores cuBLAS uses may split K and reduce in 16 bits; the bound assumes fp32 sums.
torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
torch.backends.cuda.matmul.allow_tf32 = False

TORCH_DTYPE = {np.float16: torch.float16, np.uint16: torch.bfloat16}


def to_torch(a, device="cuda"):
    t = torch.from_numpy(a.view(np.int16) if a.dtype == np.uint16 else a)
    return (t.view(torch.bfloat16) if a.dtype == np.uint16 else t).to(device)


def to_host(t):
    t = t.detach().contiguous().cpu()
    return t.view(torch.int16).numpy().view(np.uint16) if t.dtype == torch.bfloat16 else t.numpy()


def as_f64(a):
    if a.dtype == np.uint16:
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


@pytest.mark.parametrize("dtype", [np.float16, np.uint16])
@pytest.mark.parametrize("batch", [1, 2, 4, 8])
@pytest.mark.parametrize("out_float32", [False, True])
def test_macko_spmv_equals_the_warp_model_bit_for_bit(rng, dtype, batch, out_float32):
    a = sparse(rng, (700, 1536), 0.5, dtype)
    m = ws.encode_macko(a, align_rows=True)
    d = ws.cuda.upload_macko(m)
    x = sparse(rng, (1536, batch) if batch > 1 else (1536,), 1.0, dtype)
    out = torch.empty((700, batch) if batch > 1 else (700,), device="cuda",
                      dtype=torch.float32 if out_float32 else TORCH_DTYPE[dtype])
    ws.cuda.macko_spmv(d, to_torch(x), out=out)
    torch.cuda.synchronize()
    model = ws.spmv_model(m, x, schedule=d.schedule(batch), out_dtype="float32" if out_float32 else
                          ("bf16" if dtype == np.uint16 else np.float16))
    assert same_bits(to_host(out), model)


@pytest.mark.parametrize("dtype", [np.float16, np.uint16])
def test_macko_and_torch_dense_within_their_bounds(rng, dtype):
    a = sparse(rng, (1024, 2048), 0.5, dtype)
    m = ws.encode_macko(a)
    d = ws.cuda.upload_macko(m)
    x = sparse(rng, (2048, 4), 1.0, dtype)
    y = torch.empty((1024, 4), device="cuda", dtype=torch.float32)
    ws.cuda.macko_spmv(d, to_torch(x), out=y)
    dense = (to_torch(a).float() @ to_torch(x).float())  # fp32 GEMM of the same values (TF32 off)
    exact, bound = ws.macko_oracle_bound(m, x, schedule=d.schedule(4))
    # A dense product's chain is the whole row (its zeros are in the chain); twice that leaves room
    # for a split-K reduction's extra additions.
    _, dense_bound = ws.macko_oracle_bound(m, x, chain=2 * 2048)
    got, ref = to_host(y).astype(np.float64), to_host(dense).astype(np.float64)
    assert (np.abs(got - exact) <= bound).all()
    assert (np.abs(ref - exact) <= dense_bound).all()
    assert (np.abs(got - ref) <= bound + dense_bound).all()


def test_the_callers_stream_is_used_and_outputs_export(rng):
    a = sparse(rng, (256, 512), 0.5, np.float16)
    m = ws.encode_macko(a)
    d = ws.cuda.upload_macko(m)
    x = to_torch(sparse(rng, (512,), 1.0, np.float16))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = ws.cuda.macko_spmv(d, x, stream=side)  # a DeviceArray written on `side`
        got = torch.from_dlpack(y)
    side.synchronize()
    assert tuple(y.shape) == (256,) and y.dtype == "float16"
    assert same_bits(to_host(got), ws.spmv_model(m, to_host(x), schedule=d.schedule(1), out_dtype=np.float16))
    assert ws.cuda.stream_handle(side) == side.cuda_stream


def test_the_launch_is_queued_on_the_callers_stream_and_returns_at_once(rng):
    # Behind a ~1 s spin on `side`, a launch on `side` must return before the spin ends (a hidden
    # synchronisation would wait it out) and must not have run when another stream reads its output
    # (a launch on any other stream would have). torch's pool streams do not synchronise with each
    # other or with the default stream.
    m = ws.encode_macko(sparse(rng, (256, 512), 0.5, np.float16))
    d = ws.cuda.upload_macko(m)
    x_host = sparse(rng, (512,), 1.0, np.float16)
    x = to_torch(x_host)
    out = torch.empty((256,), dtype=torch.float16, device="cuda")
    ws.cuda.macko_spmv(d, x, out=out)  # the kernel loaded (lazy module loading may synchronise)
    out.fill_(float("nan"))
    torch.cuda.synchronize()
    side, peek = torch.cuda.Stream(), torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(2_000_000_000)  # clock cycles: about 1 s at the H100's and H200's 1.98 GHz
        ws.cuda.macko_spmv(d, x, out=out, stream=side)
    busy = not side.query()
    with torch.cuda.stream(peek):
        early = out.cpu()  # a copy on `peek`, waited for on the host
    busy_after_peek = not side.query()
    side.synchronize()
    assert busy, "the launch returned only after the work queued before it on its stream"
    assert busy_after_peek, "the spin ended before the peek: the check below would prove nothing"
    assert np.isnan(early.numpy()).all(), "the output was written before the caller's stream reached the launch"
    assert same_bits(to_host(out), ws.spmv_model(m, x_host, schedule=d.schedule(1), out_dtype=np.float16))


def test_device_errors_are_clear(rng):
    m = ws.encode_macko(sparse(rng, (64, 128), 0.5, np.float16))
    d = ws.cuda.upload_macko(m)
    x = torch.zeros(128, dtype=torch.float16, device="cuda")
    with pytest.raises(ValueError, match="CPU"):
        ws.cuda.macko_spmv(d, x.cpu())
    with pytest.raises(ValueError, match="x must be float16"):
        ws.cuda.macko_spmv(d, x.float())
    with pytest.raises(ValueError, match="cols = 128"):
        ws.cuda.macko_spmv(d, x[:100])
    with pytest.raises(ValueError, match="C-contiguous"):
        ws.cuda.macko_spmv(d, torch.zeros(4, 128, dtype=torch.float16, device="cuda").t())
    with pytest.raises(ValueError, match="pad x"):
        ws.cuda.macko_spmv(d, torch.zeros(128, 3, dtype=torch.float16, device="cuda"))
    with pytest.raises(ValueError, match="out must have shape"):
        ws.cuda.macko_spmv(d, x, out=torch.empty(10, dtype=torch.float16, device="cuda"))
    with pytest.raises(ValueError, match="fp16 or bf16"):
        ws.cuda.upload_macko(ws.encode_macko(np.eye(8, dtype=np.float32)))
    view = ws.cuda.dlpack_view(x[8:])
    assert view["shape"] == (120,) and view["data"] == x.data_ptr() + 16


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("tokens", [1, 3, 8, 11])
def test_sparse_linear_macko_matches_the_dense_layer(dtype, tokens):
    torch.manual_seed(0)
    lin = torch.nn.Linear(1024, 384, bias=True, device="cuda", dtype=dtype)
    w = ws.prune(to_host(lin.weight), density=0.5)
    with torch.no_grad():
        lin.weight.copy_(to_torch(w))
    sl = wt.SparseLinear.from_dense(lin, format="macko")
    x = torch.randn(2, tokens, 1024, device="cuda", dtype=dtype)
    got = sl(x)
    assert got.shape == (2, tokens, 384) and got.dtype == dtype
    # Against the oracle: the MACKO product within a chain as long as the row (which covers the
    # kernel's shorter chains) in the layer's dtype, then one more rounding for the bias.
    m = ws.encode_macko(w, align_rows=True)
    xs = to_host(x.reshape(-1, 1024).t().contiguous())
    out_dtype = "bf16" if dtype == torch.bfloat16 else np.float16
    exact, bound = ws.macko_oracle_bound(m, xs, chain=1024, out_dtype=out_dtype)
    want = exact.T + to_host(lin.bias.float()).astype(np.float64)
    unit = 2.0 ** -8 if dtype == torch.bfloat16 else 2.0 ** -11
    err = np.abs(to_host(got.float()).reshape(-1, 384).astype(np.float64) - want)
    assert (err <= bound.T + unit * (np.abs(want) + bound.T)).all()


@pytest.mark.parametrize("dtype", [np.float16, np.uint16])
@pytest.mark.parametrize("batch", [1, 3, 8, 16])
@pytest.mark.parametrize("out_float32", [False, True])
def test_bitmap_spmm_within_its_bound_of_the_oracle(rng, dtype, batch, out_float32):
    # Tensor cores do not add in a specified order: the kernel is held to the forward bound of an
    # fp32 chain of A.bound_chain(B) additions (reference/bitmap/bitmap_spmm_model.hpp), then the
    # output's rounding.
    a = sparse(rng, (200, 1000), 0.5, dtype)
    x = sparse(rng, (1000, batch), 1.0, dtype)
    A = ws.cuda.upload_bitmap(ws.encode_bitmap(a))
    assert A.shape == a.shape and A.bytes > 0
    out = torch.full((200, batch), float("nan"), device="cuda",
                     dtype=torch.float32 if out_float32 else TORCH_DTYPE[dtype])
    ws.cuda.bitmap_spmm(A, to_torch(x), out=out, stream=torch.cuda.current_stream())
    exact, mag = as_f64(a) @ as_f64(x), np.abs(as_f64(a)) @ np.abs(as_f64(x))
    n, u = A.bound_chain(batch), 2.0 ** -24
    gamma = n * u / (1 - n * u)
    u_out = 0.0 if out_float32 else (2.0 ** -8 if dtype == np.uint16 else 2.0 ** -11)
    eta = 0.0 if out_float32 else (2.0 ** -134 if dtype == np.uint16 else 2.0 ** -25)
    got = as_f64(to_host(out))
    assert np.isfinite(got).all()
    assert (np.abs(got - exact) <= u_out * np.abs(exact) + (1 + u_out) * gamma * mag + eta).all()
    # beta reads y: out = 2 A x - out.
    prev = got.copy()
    ws.cuda.bitmap_spmm(A, to_torch(x), out=out, stream=torch.cuda.current_stream(), alpha=2.0, beta=-1.0)
    want = 2 * exact - prev
    slack = 2 * (u_out * np.abs(want) + 2 * (1 + u_out) * gamma * mag + np.abs(prev) * u_out + eta)
    assert (np.abs(as_f64(to_host(out)) - want) <= slack + 1e-30).all()


def test_bitmap_errors_are_clear(rng):
    A = ws.cuda.upload_bitmap(ws.encode_bitmap(sparse(rng, (32, 64), 0.5, np.float16)))
    with pytest.raises(ValueError, match="1..16 vectors"):
        ws.cuda.bitmap_spmm(A, torch.zeros(64, 17, device="cuda", dtype=torch.float16))
    with pytest.raises(ValueError, match="cols = 64"):
        ws.cuda.bitmap_spmm(A, torch.zeros(63, 2, device="cuda", dtype=torch.float16))
    with pytest.raises(ValueError, match="x must be"):
        ws.cuda.bitmap_spmm(A, torch.zeros(64, 2, device="cuda", dtype=torch.bfloat16))
    with pytest.raises(ValueError, match="fp16 or bf16"):
        ws.cuda.upload_bitmap(ws.encode_bitmap(sparse(rng, (32, 64), 0.5, np.float32)))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("tokens", [2, 8, 12, 20])
def test_sparse_linear_with_bitmap_tiles_follows_the_batch_rule(dtype, tokens):
    torch.manual_seed(2)
    lin = torch.nn.Linear(1024, 384, bias=False, device="cuda", dtype=dtype)
    w = ws.prune(to_host(lin.weight), density=0.5)
    with torch.no_grad():
        lin.weight.copy_(to_torch(w))
    sl = wt.SparseLinear.from_dense(lin)  # auto: MACKO and, at d = 0.5, the bitmap tiles
    assert "formats=macko+bitmap" in repr(sl)
    assert sl._bitmap_for[8] and not sl._bitmap_for[2]  # the policy: tensor cores from 5 vectors at d >= 0.45
    only = wt.SparseLinear.from_dense(lin, format="bitmap")
    assert "formats=bitmap" in repr(only) and all(only._bitmap_for.values())
    x = torch.randn(tokens, 1024, device="cuda", dtype=dtype)
    xs = as_f64(to_host(x))
    exact, mag = as_f64(w) @ xs.T, np.abs(as_f64(w)) @ np.abs(xs.T)
    # The longer of the two kernels' chains (MACKO's covered by a row's length), then the output's rounding.
    n = max(1024, max(sl._bitmap.bound_chain(t) for t in range(1, 17)))
    gamma, unit = n * 2.0 ** -24 / (1 - n * 2.0 ** -24), (2.0 ** -8 if dtype == torch.bfloat16 else 2.0 ** -11)
    for layer in (sl, only):
        got = to_host(layer(x).float()).astype(np.float64)
        assert got.shape == (tokens, 384)
        assert (np.abs(got.T - exact) <= unit * np.abs(exact) + (1 + unit) * gamma * mag + 2.0 ** -24).all()
    # Where the rule picks the tensor cores for every chunk, both layers ran the same kernel: same bits.
    if all(sl._bitmap_for[min(16, tokens - s)] for s in range(0, tokens, 16)):
        assert torch.equal(sl(x), only(x))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("tokens", [4, 8])
@pytest.mark.parametrize("pattern", ["d=0.5", "2:4"])
def test_compile_fullgraph_and_cuda_graph(dtype, tokens, pattern):
    """d = 0.5: MACKO at 4 tokens, the bitmap tiles (in parts) at 8; 2:4: the 2:4 GEMM (split in K)
    at both. The graph is replayed after a larger eager call, whose scratch must not be the graph's."""
    torch.manual_seed(1)
    lin = torch.nn.Linear(512, 256, device="cuda", dtype=dtype)
    pruned = ws.prune(to_host(lin.weight), nm="2:4") if pattern == "2:4" else ws.prune(to_host(lin.weight), density=0.5)
    with torch.no_grad():
        lin.weight.copy_(to_torch(pruned))
    model = torch.nn.Sequential(wt.SparseLinear.from_dense(lin), torch.nn.ReLU())
    if pattern == "2:4":
        assert model[0]._gemm_from <= tokens
    else:
        assert model[0]._bitmap_for[tokens] == (tokens == 8)
    x = torch.randn(tokens, 512, device="cuda", dtype=dtype)
    eager = model(x)
    compiled = torch.compile(model, fullgraph=True)
    assert torch.equal(compiled(x), eager)
    static_x = x.clone()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        model(static_x)  # warm-up outside the capture
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_y = model(static_x)
    model(torch.randn(16, 512, device="cuda", dtype=dtype))  # more partials than the captured call
    static_x.copy_(x * 2)
    g.replay()
    torch.cuda.synchronize()
    assert torch.equal(static_y, model(x * 2))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("tokens", [1, 2, 3, 8, 20])
def test_sparse_linear_2_4_runs_the_gemm_from_3_tokens(dtype, tokens):
    torch.manual_seed(3)
    lin = torch.nn.Linear(1024, 384, bias=False, device="cuda", dtype=dtype)
    w = ws.prune(to_host(lin.weight), nm="2:4")
    with torch.no_grad():
        lin.weight.copy_(to_torch(w))
    sl = wt.SparseLinear.from_dense(lin)  # auto on a 2:4 weight: MACKO and the 2:4 GEMM
    assert "formats=macko+2:4" in repr(sl) and sl._gemm_from == 3
    x = torch.randn(tokens, 1024, device="cuda", dtype=dtype)
    got = to_host(sl(x).float()).astype(np.float64)
    assert got.shape == (tokens, 384)
    out_dtype = "bf16" if dtype == torch.bfloat16 else np.float16
    xs = to_host(x.t().contiguous())
    if tokens >= 3:  # the GEMM's bound (zero columns pad N to 16; they change no real output)
        exact, bound = ws.sparse24_oracle_bound(ws.encode_sparse24(w), xs, out_dtype=out_dtype)
    else:  # MACKO's, within a chain as long as the row
        exact, bound = ws.macko_oracle_bound(ws.encode_macko(w, align_rows=True), xs, chain=1024, out_dtype=out_dtype)
    assert (np.abs(got - exact.T) <= bound.T).all()


def test_sparse_linear_2_4_takes_the_gemm_at_2_tokens_where_macko_gathers_x_through_l1():
    # 28672 columns: MACKO's 2-vector schedule on the H100 reads x through L1, where its gathers of
    # 2:4 rows are slow (bitmap::Rules::sparse24_min_batch); the layer follows what the device says.
    torch.manual_seed(4)
    lin = torch.nn.Linear(28672, 64, bias=False, device="cuda", dtype=torch.float16)
    w = ws.prune(to_host(lin.weight), nm="2:4")
    with torch.no_grad():
        lin.weight.copy_(to_torch(w))
    sl = wt.SparseLinear.from_dense(lin)
    l1 = sl._macko.gathers_x_through_l1(2)
    if "H100" in torch.cuda.get_device_name():
        assert l1  # the schedule the H100's rules give this shape (warpsparse plan --batch 2)
    assert sl._gemm_from == (2 if l1 else 3)
    x = torch.randn(2, 28672, device="cuda", dtype=torch.float16)
    got = to_host(sl(x).float()).astype(np.float64)
    xs = to_host(x.t().contiguous())
    if l1:
        exact, bound = ws.sparse24_oracle_bound(ws.encode_sparse24(w), xs, out_dtype=np.float16)
    else:
        exact, bound = ws.macko_oracle_bound(ws.encode_macko(w, align_rows=True), xs, chain=28672, out_dtype=np.float16)
    assert (np.abs(got - exact.T) <= bound.T).all()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_sparse24_against_torch_semi_structured(dtype):
    torch.manual_seed(2)
    lin = torch.nn.Linear(1024, 512, bias=False, device="cuda", dtype=dtype)
    w = ws.prune(to_host(lin.weight), nm="2:4")
    with torch.no_grad():
        lin.weight.copy_(to_torch(w))
    sl = wt.SparseLinear.from_dense(lin, format="2:4")
    x = torch.randn(64, 1024, device="cuda", dtype=dtype)
    got = sl(x)  # 64 tokens: the 2:4 GEMM
    ws_sparse = torch.sparse.to_sparse_semi_structured(lin.weight)
    ref = torch.mm(ws_sparse, x.t().contiguous()).t()
    s = ws.encode_sparse24(w)
    exact, bound = ws.sparse24_oracle_bound(s, to_host(x.t().contiguous()), out_dtype="bf16" if dtype == torch.bfloat16
                                            else np.float16)
    exact_t, bound_t = exact.T, bound.T
    assert (np.abs(to_host(got.float()).astype(np.float64) - exact_t) <= bound_t).all()
    assert (np.abs(to_host(ref.float()).astype(np.float64) - exact_t) <= bound_t).all()


def test_sparse24_gemm_direct_and_tiles(rng):
    w = ws.prune(sparse(rng, (256, 512), 1.0, np.float16), nm="2:4")
    s = ws.encode_sparse24(w)
    d = ws.cuda.upload_sparse24(s)
    b = sparse(rng, (512, 16), 1.0, np.float16)
    c = torch.empty(256, 16, device="cuda", dtype=torch.float32)
    ws.cuda.sparse24_gemm(d, to_torch(b), out=c)
    exact, bound = ws.sparse24_oracle_bound(s, b)
    torch.cuda.synchronize()
    assert (np.abs(to_host(c).astype(np.float64) - exact) <= bound).all()
    with pytest.raises(ws.Error, match="unknown 2:4 tile"):
        ws.cuda.sparse24_gemm(d, to_torch(b), out=c, tile="nope")


class _DlpackOnly:
    """A tensor seen only through the DLPack protocol (not as a torch.Tensor)."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def test_torch_tensors_by_attributes_and_through_dlpack_give_the_same_bits(rng):
    # torch tensors on the launch's stream are read from their attributes (warpsparse.cuda.torch_view);
    # every other producer goes through DLPack. Both must launch the same product.
    m = ws.encode_macko(sparse(rng, (300, 640), 0.5, np.float16))
    d = ws.cuda.upload_macko(m)
    x = to_torch(sparse(rng, (640, 2), 1.0, np.float16))
    fast = torch.empty((300, 2), device="cuda", dtype=torch.float16)
    slow = torch.empty_like(fast)
    assert ws.cuda.macko_spmv(d, x, out=fast) is fast
    ws.cuda.macko_spmv(d, _DlpackOnly(x), out=_DlpackOnly(slow))
    torch.cuda.synchronize()
    assert same_bits(to_host(fast), to_host(slow))
    code, bits = ws.cuda.torch_view(x)[3:5]
    assert (code, bits) == (2, 16)
    with pytest.raises(ValueError, match="dtype code 0"):
        ws.cuda.macko_spmv(d, x.to(torch.int16))


def test_the_ops_eager_and_compiled_equal_the_warp_model(rng):
    m = ws.encode_macko(sparse(rng, (384, 768), 0.5, np.float16), align_rows=True)
    d = ws.cuda.upload_macko(m)
    key = wt.register_matrix(d)
    x = sparse(rng, (768, 4), 1.0, np.float16)
    xt = to_torch(x)
    eager = torch.ops.warpsparse.macko_spmv(xt, key, 384)
    compiled = torch.compile(lambda t: torch.ops.warpsparse.macko_spmv(t, key, 384) * 1, fullgraph=True)(xt)
    model = ws.spmv_model(m, x, schedule=d.schedule(4), out_dtype=np.float16)
    torch.cuda.synchronize()
    assert same_bits(to_host(eager), model)
    assert same_bits(to_host(compiled), model)
    fake = torch._subclasses.fake_tensor.FakeTensorMode()
    with fake:
        shape = torch.ops.warpsparse.macko_spmv(fake.from_tensor(xt), key, 384).shape
    assert tuple(shape) == (384, 4)
