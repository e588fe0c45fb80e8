// The routines Switchyard can route, and what the router needs to know of
// each: its name, and the flops of one call for the report.
#pragma once

#include <cstdint>

namespace switchyard {

// psgeqrf and pdgeqrf are ScaLAPACK's (scalapack/pgeqrf.hpp): routed by their distribution,
// not by the router's cost model, with the same configuration and trace.
enum class Routine {
  sgemm, dgemm, ssyrk, dsyrk, sgeqrf, dgeqrf, sorgqr, dorgqr, sormqr, dormqr, psgeqrf, pdgeqrf,
  sgeqp3, dgeqp3, sgels, dgels, sgelsd, dgelsd, sgesdd, dgesdd, sgesvd, dgesvd
};
inline constexpr int routine_count = 22;

// Lower-case LAPACK name ("dgemm").
const char* routine_name(Routine r);

// Whether the routine works in single precision (sgemm, psgeqrf, ...).
bool single_precision(Routine r);

// The shape of one call as the router and the trace see it.
struct Shape {
  std::int64_t m = 0, n = 0, k = 0;
  // 0 where the routine has no transpose; xORMQR puts SIDE and TRANS here, xSYRK UPLO and
  // TRANS (its C is n x n: m = n), xGESDD JOBZ, xGESVD JOBU and JOBVT.
  char transa = 0, transb = 0;
  // The operands are in device or managed memory: the device route takes the call whatever
  // the cost model says, since the fallback can not read them.
  bool on_device = false;
  // op(B) is op(A)'s host matrix (gemm's Gram product A^T A, every syrk): it is moved once.
  bool same_operand = false;
  // C goes up to the device as well as down (gemm and syrk with beta != 0); with beta = 0 it is
  // only written.
  bool reads_c = true;
};

// Whether a gemm's op(B) is op(A)'s host matrix read again: the same pointer and leading
// dimension, and the same stored shape (the Gram products A^T A and A A^T, and A A). The route
// then moves it once, and the cost model counts it once.
inline bool same_operand(char transa, char transb, std::int64_t m, std::int64_t n,
                         std::int64_t k, const void* a, std::int64_t lda, const void* b,
                         std::int64_t ldb) {
  const bool na = transa == 'N', nb = transb == 'N';
  return a == b && lda == ldb && (na ? m : k) == (nb ? k : n) && (na ? k : m) == (nb ? n : k);
}

// Floating-point operations of one call, LAPACK's operation-count convention.
double routine_flops(Routine r, const Shape& s);

}  // namespace switchyard
