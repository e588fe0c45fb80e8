"""NumPy and SciPy from pip wheels, with and without Switchyard preloaded (docs/pip-wheels.md).

Run with the venv's python, once plainly and once under
LD_PRELOAD=build/src/libswitchyard.so (SWITCHYARD_TRACE=stderr shows the calls):

  pip_wheels.py results OUT.npz     the operations Switchyard reaches; their results saved,
                                    each checked against a product or reconstruction
  pip_wheels.py same A.npz B.npz    whether two runs' results are the same bits
  pip_wheels.py times               best-of-5 wall times of a few calls, and the cost per call
                                    of tiny ones
  pip_wheels.py ggev3 N OUT         the wheels' own xGGEV3 through ctypes (its QZ sweep calls
                                    unprefixed helpers, dlaqz0_..., through the global scope):
                                    best-of-3 time, and whether its eigenvalues are the bits
                                    saved in OUT.<name>.npy by the first run
"""
import ctypes
import glob
import os
import sys
import time

import numpy as np
import scipy.linalg as sl
from scipy.linalg import blas


def results(out):
    rng = np.random.default_rng(7)
    a = rng.random((300, 300))
    x = rng.random((400, 120))
    f = a.astype(np.float32)
    q, r = np.linalg.qr(x)
    q2, r2 = sl.qr(x, mode="economic")
    got = {
        "matmul": a @ a,
        "xtx": x.T @ x,
        "sgemm": f @ f,
        "np_qr": np.concatenate([q.ravel(), r.ravel()]),
        "sp_qr": np.concatenate([q2.ravel(), r2.ravel()]),
        "dgemm": blas.dgemm(1.0, x, x, trans_a=True),
        "dsyrk": blas.dsyrk(1.0, x, trans=1),
        "lstsq": np.linalg.lstsq(x, x[:, 0] + 1.0, rcond=None)[0],
    }
    np.savez(out, **got)
    checks = {
        "a @ a": np.allclose(got["matmul"], np.einsum("ij,jk->ik", a, a)),
        "x.T @ x": np.allclose(got["xtx"], np.einsum("ki,kj->ij", x, x)),
        "f @ f": np.allclose(got["sgemm"], np.einsum("ij,jk->ik", f, f), rtol=1e-4),
        "np.linalg.qr": np.allclose(q @ r, x),
        "scipy.linalg.qr": np.allclose(q2 @ r2, x),
        "blas.dgemm": np.allclose(got["dgemm"], got["xtx"]),
        "blas.dsyrk": np.allclose(np.triu(got["dsyrk"]), np.triu(got["xtx"])),
        "lstsq": np.allclose(x.T @ (x @ got["lstsq"]), x.T @ (x[:, 0] + 1.0)),
    }
    for name, ok in checks.items():
        print(f"{name:16s} {'ok' if ok else 'WRONG'}")
    return all(checks.values())


def same(first, second):
    a, b = np.load(first), np.load(second)
    equal = {k: np.array_equal(a[k], b[k]) for k in a}
    for k, ok in equal.items():
        print(f"{k:8s} {'same bits' if ok else 'DIFFERENT'}")
    return all(equal.values())


def best(f, reps=5):
    f()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def times():
    rng = np.random.default_rng(1)
    a = rng.random((1500, 1500))
    x = rng.random((20000, 200))
    t = rng.random((8, 8))
    for name, f in [("a @ a (1500 x 1500)", lambda: a @ a),
                    ("x.T @ x (20000 x 200)", lambda: x.T @ x),
                    ("np.linalg.qr(x)", lambda: np.linalg.qr(x)),
                    ("scipy.linalg.qr(x, economic)", lambda: sl.qr(x, mode="economic")),
                    ("blas.dgemm(1, x, x, trans_a)", lambda: blas.dgemm(1.0, x, x, trans_a=True))]:
        print(f"{name:32s} {best(f) * 1e3:9.2f} ms")
    calls = 20000
    for name, f in [("8 x 8 t @ t", lambda: t @ t),
                    ("8 x 8 blas.dgemm", lambda: blas.dgemm(1.0, t, t))]:
        def many():
            for _ in range(calls):
                f()
        print(f"{name:32s} {best(many, 7) / calls * 1e6:9.2f} us per call")
    return True


def ggev3(n, out):
    site = os.path.dirname(os.path.dirname(np.__file__))
    rng = np.random.default_rng(3)
    a0 = np.asfortranarray(rng.random((n, n)))
    b0 = np.asfortranarray(rng.random((n, n)))
    ok = True
    for pattern, integer, name in [("scipy.libs/libscipy_openblas-*.so", ctypes.c_int32,
                                    "scipy_dggev3_"),
                                   ("numpy.libs/libscipy_openblas64_-*.so", ctypes.c_int64,
                                    "scipy_dggev3_64_")]:
        lib = ctypes.CDLL(glob.glob(os.path.join(site, pattern))[0], mode=os.RTLD_NOLOAD)
        routine = getattr(lib, name)
        ptr = lambda v: v.ctypes.data_as(ctypes.c_void_p)
        ref = ctypes.byref
        size, one, info = integer(n), integer(1), integer(0)
        alphar, alphai, beta = np.zeros(n), np.zeros(n), np.zeros(n)
        vl, vr = np.zeros(1), np.zeros(1)

        def run(work, lwork, a, b):
            routine(b"N", b"N", ref(size), ptr(a), ref(size), ptr(b), ref(size), ptr(alphar),
                    ptr(alphai), ptr(beta), ptr(vl), ref(one), ptr(vr), ref(one), ptr(work),
                    ref(lwork), ref(info), ctypes.c_size_t(1), ctypes.c_size_t(1))

        query = np.zeros(1)
        run(query, integer(-1), a0.copy(order="F"), b0.copy(order="F"))
        work, lwork = np.zeros(int(query[0])), integer(int(query[0]))
        seconds = best(lambda: run(work, lwork, a0.copy(order="F"), b0.copy(order="F")), 3)
        got = np.concatenate([alphar, alphai, beta])
        saved = f"{out}.{name}.npy"
        if os.path.exists(saved):
            equal = np.array_equal(np.load(saved), got)
            ok = ok and equal
            verdict = "same bits as " + saved if equal else "DIFFERENT from " + saved
        else:
            np.save(saved, got)
            verdict = "saved " + saved
        print(f"{name:18s} n={n} info={info.value} {seconds:.3f} s  {verdict}")
    return ok


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "results" and len(sys.argv) == 3:
        sys.exit(0 if results(sys.argv[2]) else 1)
    if command == "same" and len(sys.argv) == 4:
        sys.exit(0 if same(sys.argv[2], sys.argv[3]) else 1)
    if command == "times" and len(sys.argv) == 2:
        sys.exit(0 if times() else 1)
    if command == "ggev3" and len(sys.argv) == 4:
        sys.exit(0 if ggev3(int(sys.argv[2]), sys.argv[3]) else 1)
    sys.exit(__doc__)
