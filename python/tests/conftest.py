"""Shared fixtures; the `gpu` marker selects the tests that need a CUDA device and torch (run on the
device machine: scripts/device_run.sh python). Without them those tests are skipped, not failed."""
import numpy as np
import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device, the CUDA build and torch")


@pytest.fixture
def rng():
    return np.random.default_rng(20261126)


def sparse(rng, shape, density, dtype):
    """A random matrix with about `density` nonzeros, in `dtype` (uint16: bf16 bits)."""
    a = rng.standard_normal(shape).astype(np.float32)
    a[rng.random(shape) >= density] = 0
    if dtype == np.uint16:  # bf16: the upper half of fp32, rounded toward zero (exact for tests)
        return (a.view(np.uint32) >> 16).astype(np.uint16)
    if dtype == np.int8:
        return np.clip(np.round(a * 20), -128, 127).astype(np.int8)
    return a.astype(dtype)


def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()
