# SciPy's pivoted QR on a fixed random matrix wider than LAPACK's blocking
# crossover (128 columns), so that dgeqp3 takes its blocked path (see
# client_output.py for what it writes).
import sys

import numpy as np
import scipy.linalg

from client_output import ClientOutput

out = ClientOutput(sys.argv[1])
A = np.random.default_rng(18).standard_normal((400, 160))

out.case("qr_pivoting")
Q, R, P = scipy.linalg.qr(A, pivoting=True, mode="economic")
out.record("qr_pivoting.Q", Q)
out.record("qr_pivoting.R", R)
out.record("qr_pivoting.P", P)
