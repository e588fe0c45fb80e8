# The output of the Python clients: results one line per array, and case
# marks in Switchyard's trace (when SWITCHYARD_TRACE names a file), so that
# run_client.sh can tell which calls each case made.
import os

import numpy as np


class ClientOutput:
    def __init__(self, results_path):
        self.results = open(results_path, "w")
        self.trace = os.environ.get("SWITCHYARD_TRACE")

    def case(self, name):
        if self.trace:
            with open(self.trace, "a") as f:
                f.write(f"case {name}\n")

    def record(self, name, array):
        values = " ".join(repr(float(v)) for v in np.ravel(array))
        self.results.write(f"{name} {values}\n")
