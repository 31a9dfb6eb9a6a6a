"""Tensor files across the numpy boundary, both ways, bit for bit (CTest: numpy_roundtrip).

numpy -> warpsparse: np.save (C and Fortran order), np.savez, np.savez_compressed and hand-written
safetensors of every dtype are read by tensor_bytes_check, which compares the tensor's bytes with
the array's own tobytes().
warpsparse -> numpy: `warpsparse prune --density 1` (which keeps every element) writes safetensors
that numpy must read back as the same array; `warpsparse encode OUT.safetensors` writes a MACKO
matrix that this script decodes with numpy alone, as docs/formats.md describes the layout, and
compares with the source.

  numpy_roundtrip.py WORK_DIR TENSOR_BYTES_CHECK WARPSPARSE
"""
import json
import os
import struct
import subprocess
import sys

import numpy as np

work, checker, ws = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(int.from_bytes(os.urandom(4), "little"))
print(f"numpy {np.__version__}", file=sys.stderr)
failures = []


def run(*args):
    r = subprocess.run(list(args), capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def expect_same(spec, arr):
    exp = os.path.join(work, "expected.bin")
    with open(exp, "wb") as f:
        f.write(np.ascontiguousarray(arr).tobytes())
    rc, out = run(checker, spec, exp)
    if rc != 0:
        failures.append(f"{spec}: {out.strip()}")


def sparse(shape, dtype):
    w = rng.standard_normal(shape).astype(np.float32)
    w[np.abs(w) < 0.7] = 0
    if dtype == np.int8:
        return np.clip(np.round(w * 30), -128, 127).astype(np.int8)
    return w.astype(dtype)


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name, (dt, arr) in tensors.items():
        b = np.ascontiguousarray(arr).tobytes()
        header[name] = {"dtype": dt, "shape": list(arr.shape), "data_offsets": [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    names = {"F16": np.float16, "F32": np.float32, "I8": np.int8, "U8": np.uint8, "I64": np.int64, "BF16": np.uint16,
             "U16": np.uint16}
    out = {}
    for k, v in header.items():
        if k == "__metadata__":
            continue
        b, e = v["data_offsets"]
        out[k] = np.frombuffer(data[8 + n + b:8 + n + e], dtype=names[v["dtype"]]).reshape(v["shape"])
    return header.get("__metadata__", {}), out


shapes = [(1, 1), (7, 13), (int(rng.integers(1, 40)), int(rng.integers(1, 300)))]
for dtype, st_name in [(np.float16, "F16"), (np.float32, "F32"), (np.int8, "I8")]:
    for shape in shapes:
        a = sparse(shape, dtype)
        tag = f"{st_name}-{shape[0]}x{shape[1]}"
        p = os.path.join(work, tag + ".npy")
        np.save(p, a)
        expect_same(p, a)
        pf = os.path.join(work, tag + "-F.npy")
        np.save(pf, np.asfortranarray(a))
        expect_same(pf, a)
        pz = os.path.join(work, tag + ".npz")
        np.savez(pz, w=a, other=np.arange(5))
        expect_same(pz + ":w", a)
        pc = os.path.join(work, tag + "-c.npz")
        np.savez_compressed(pc, w=a)
        expect_same(pc + ":w", a)
        ps = os.path.join(work, tag + ".safetensors")
        bf16 = (sparse(shape, np.float32).view(np.uint32) >> 16).astype(np.uint16)
        write_safetensors(ps, {"w": (st_name, a), "b": ("BF16", bf16), "v": ("F32", np.ones(3, np.float32))})
        expect_same(ps + ":w", a)
        expect_same(ps + ":b", bf16)

        # warpsparse -> numpy: a prune that keeps everything writes the same array back.
        if dtype != np.int8:
            out = os.path.join(work, tag + "-kept.safetensors")
            rc, msg = run(ws, "prune", p, out, "--density", "1")
            if rc != 0:
                failures.append(f"prune {p}: {msg.strip()}")
            else:
                meta, t = read_safetensors(out)
                got = t[tag]
                if got.dtype != a.dtype or got.shape != a.shape or got.tobytes() != a.tobytes():
                    failures.append(f"{out}: numpy reads a different array")

        # warpsparse -> numpy: a MACKO matrix decoded with numpy alone.
        for db in (1, 2, 4, 8):
            out = os.path.join(work, f"{tag}-macko{db}.safetensors")
            rc, msg = run(ws, "encode", "--delta-bits", str(db), p, out)
            if rc != 0:
                failures.append(f"encode {p}: {msg.strip()}")
                continue
            meta, t = read_safetensors(out)
            rows, cols, bits = int(meta["rows"]), int(meta["cols"]), int(meta["delta_bits"])
            vals, deltas, ptr = t["values"], t["deltas"], t["row_ptr"]
            dense = np.zeros((rows, cols), dtype=vals.dtype)
            per = 8 // bits
            for r in range(rows):
                c = -1
                for k in range(ptr[r], ptr[r + 1]):
                    d = (int(deltas[k // per]) >> ((k % per) * bits)) & ((1 << bits) - 1)
                    c += d + 1
                    if vals[k] != 0:
                        dense[r, c] = vals[k]
            expect = np.where(a == 0, np.zeros_like(a), a)  # -0 is a zero: not stored
            if dense.tobytes() != expect.tobytes():
                failures.append(f"{out}: the MACKO arrays decode to a different matrix")

if failures:
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
print(f"numpy round trips: all {len(shapes) * 3} shapes x dtypes held", file=sys.stderr)
