# NumPy's linear algebra on fixed random matrices (see client_output.py for
# what it writes).
import sys

import numpy as np

from client_output import ClientOutput

out = ClientOutput(sys.argv[1])
rng = np.random.default_rng(18)
A = rng.standard_normal((400, 60))
B = rng.standard_normal((60, 300))
b = rng.standard_normal(400)

out.case("qr")
Q, R = np.linalg.qr(A)
out.record("qr.Q", Q)
out.record("qr.R", R)

out.case("lstsq")
x, residual, rank, sv = np.linalg.lstsq(A, b, rcond=None)
out.record("lstsq.x", x)
out.record("lstsq.sv", sv)

out.case("svd")
U, s, Vt = np.linalg.svd(A, full_matrices=False)
out.record("svd.U", U)
out.record("svd.s", s)
out.record("svd.Vt", Vt)

out.case("gram")
out.record("gram", A.T @ A)

out.case("matmul")
out.record("matmul", A @ B)
