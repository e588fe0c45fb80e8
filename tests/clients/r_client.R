# R's linear algebra on fixed random matrices. Writes each case's results to
# the file named by the first argument, one line per matrix, and marks in
# Switchyard's trace (when SWITCHYARD_TRACE names a file) where each case
# starts, so that run_client.sh can tell which calls each case made.
results <- file(commandArgs(trailingOnly = TRUE)[1], "w")
trace <- Sys.getenv("SWITCHYARD_TRACE")

mark_case <- function(name) {
  if (nzchar(trace)) cat("case ", name, "\n", file = trace, append = TRUE, sep = "")
}
record <- function(name, x) {
  cat(name, sprintf("%.17g", as.vector(x)), "\n", file = results)
}

set.seed(18)
x <- matrix(rnorm(400 * 160), 400, 160)
y <- matrix(rnorm(160 * 300), 160, 300)

# R's default qr is LINPACK's dqrdc2, which is R's own code.
mark_case("qr_linpack")
q <- qr(x)
record("qr_linpack.qr", q$qr)
record("qr_linpack.qraux", q$qraux)

# LAPACK=TRUE is dgeqp3; 160 columns are past its blocking crossover (128).
mark_case("qr_lapack")
q <- qr(x, LAPACK = TRUE)
record("qr_lapack.qr", q$qr)
record("qr_lapack.Q", qr.Q(q))

mark_case("crossprod")
record("crossprod", crossprod(x))

mark_case("matmul")
record("matmul", x %*% y)

close(results)
