// Kernels of the sparse CG on half-storage DIA (the FEM Poisson seed's
// symmetric CDS): row i reads its own lower diagonals and, by symmetry, the
// upper ones from rows i + m, through the read-only cache, the loop over
// diagonals unrolled for the bucket of diagonal counts (16, 32, 64).
// Reductions: a warp shuffle, then one shared-memory pass per block, then
// one double atomicAdd per block and value.
#include <cmath>

#include "cg_kernels.hpp"

namespace switchyard::cg::cuda {
namespace {

constexpr int kBlock = 256;
constexpr int kWarps = kBlock / 32;

// Status codes of switchyard.h, repeated so that device code needs no host
// header.
constexpr int kConverged = 0, kMaxIterations = 1, kNotSpd = 2, kPreconditionerNotSpd = 3,
              kNan = 4;

// Adds each of N per-thread values over the block into out[k] (one atomic
// per block and value). Every thread of the block must call it.
template <int N>
__device__ void block_add(double (&v)[N], double* const (&out)[N]) {
  __shared__ double partial[N][kWarps];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    for (int off = 16; off > 0; off >>= 1) v[k] += __shfl_down_sync(0xffffffffu, v[k], off);
    if (lane == 0) partial[k][warp] = v[k];
  }
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int k = 0; k < N; ++k) {
      double s = lane < kWarps ? partial[k][lane] : 0.0;
      for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
      if (lane == 0) atomicAdd(out[k], s);
    }
  }
}

// y_i = (A v)_i with v_j given by value_at(j): the diagonal, then for each
// lower diagonal its own entry and the mirrored one of row i + m.
template <class V, int kDiagonals, class ValueAt>
__device__ double dia_row(const DeviceDia<V>& a, long long i, ValueAt value_at, double vi) {
  double y = double(__ldg(a.diag + i)) * vi;
#pragma unroll
  for (int d = 0; d < kDiagonals; ++d) {
    if (d < a.ndiag) {
      const long long m = a.offsets[d];
      const V* l = a.lower + static_cast<std::size_t>(d) * static_cast<std::size_t>(a.n);
      if (i >= m) y += double(__ldg(l + i)) * value_at(i - m);
      if (i + m < a.n) y += double(__ldg(l + i + m)) * value_at(i + m);
    }
  }
  return y;
}

template <class V, int kDiagonals>
__global__ void __launch_bounds__(kBlock) cg_start(DeviceDia<V> a, const double* __restrict__ b,
                                                   double* __restrict__ x,
                                                   double* __restrict__ r,
                                                   double* __restrict__ z,
                                                   double* __restrict__ p,
                                                   const double* __restrict__ solution,
                                                   int use_guess, CgDeviceSettings s,
                                                   CgDeviceScalars* scalars) {
  const long long i = static_cast<long long>(blockIdx.x) * kBlock + threadIdx.x;
  double v[6] = {0, 0, 0, 0, 0, 0};
  if (i < a.n) {
    double ax = 0.0;
    if (use_guess) {
      ax = dia_row<V, kDiagonals>(a, i, [&](long long j) { return __ldg(x + j); }, __ldg(x + i));
    }
    const double bi = b[i], ri = bi - ax;
    const double di = double(a.diag[i]);
    const double zi = s.jacobi ? ri / di : ri;
    r[i] = ri;
    z[i] = zi;
    p[i] = 0.0;
    v[0] = bi * bi;
    v[1] = ri * zi;
    v[2] = ri * ri;
    v[3] = zi * zi;
    if (s.criterion == kPreconditioned) {
      v[4] = (bi / di) * (bi / di);
    } else if (s.criterion == kError) {
      const double xi = use_guess ? x[i] : 0.0;
      v[4] = solution[i] * solution[i];
      v[5] = (xi - solution[i]) * (xi - solution[i]);
    }
  }
  // x is written only after every block has read it for the product: a
  // separate pass (cg_zero_x) clears it when there is no guess.
  double* const out[6] = {&scalars->bb, &scalars->rz, &scalars->rr, &scalars->zz, &scalars->dd,
                          &scalars->ee};
  block_add(v, out);
}

__global__ void cg_zero(double* v, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * kBlock + threadIdx.x;
  if (i < n) v[i] = 0.0;
}

// q = A p_new and p_new'q, where p_new = z + beta p_old is formed on the fly
// for every row read and stored for the row owned.
template <class V, int kDiagonals>
__global__ void __launch_bounds__(kBlock) cg_product(DeviceDia<V> a,
                                                     const double* __restrict__ z,
                                                     const double* __restrict__ p_old,
                                                     double* __restrict__ p_new,
                                                     double* __restrict__ q,
                                                     CgDeviceScalars* scalars) {
  if (scalars->done) return;
  const double beta = scalars->beta;
  const long long i = static_cast<long long>(blockIdx.x) * kBlock + threadIdx.x;
  double v[1] = {0.0};
  if (i < a.n) {
    const auto p_at = [&](long long j) { return __ldg(z + j) + beta * __ldg(p_old + j); };
    const double pi = p_at(i);
    const double qi = dia_row<V, kDiagonals>(a, i, p_at, pi);
    p_new[i] = pi;
    q[i] = qi;
    v[0] = pi * qi;
  }
  double* const out[1] = {&scalars->pq};
  block_add(v, out);
}

// x += alpha p, r -= alpha q, z = M^-1 r, with r'z, r'r, z'z and the error
// sums. Does nothing when p'Ap is not positive: finalize reports it.
template <class V>
__global__ void __launch_bounds__(kBlock) cg_update(DeviceDia<V> a,
                                                    const double* __restrict__ p,
                                                    const double* __restrict__ q,
                                                    double* __restrict__ x,
                                                    double* __restrict__ r,
                                                    double* __restrict__ z,
                                                    const double* __restrict__ solution,
                                                    CgDeviceSettings s,
                                                    CgDeviceScalars* scalars) {
  if (scalars->done) return;
  const double pq = scalars->pq;
  if (!(pq > 0.0) || !isfinite(pq)) return;
  const double alpha = scalars->rz / pq;
  const long long i = static_cast<long long>(blockIdx.x) * kBlock + threadIdx.x;
  double v[4] = {0, 0, 0, 0};
  if (i < a.n) {
    const double xi = x[i] + alpha * p[i];
    const double ri = r[i] - alpha * q[i];
    const double zi = s.jacobi ? ri / double(__ldg(a.diag + i)) : ri;
    x[i] = xi;
    r[i] = ri;
    z[i] = zi;
    v[0] = ri * zi;
    v[1] = ri * ri;
    v[2] = zi * zi;
    if (s.criterion == kError) v[3] = (xi - solution[i]) * (xi - solution[i]);
  }
  double* const out[4] = {&scalars->rz_new, &scalars->rr, &scalars->zz, &scalars->ee};
  block_add(v, out);
}

__device__ double criterion_value(const CgDeviceScalars& c, int criterion) {
  switch (criterion) {
    case kPreconditioned: return sqrt(c.zz) / sqrt(c.dd);
    case kError: return c.dd > 0.0 ? sqrt(c.ee) / sqrt(c.dd) : sqrt(c.ee);
    default: return sqrt(c.rr) / sqrt(c.bb);
  }
}

// One thread: the decisions of one iteration, in the host CG's order.
__global__ void cg_finalize(CgDeviceSettings s, CgDeviceScalars* c) {
  if (c->done) return;
  const double pq = c->pq;
  if (!isfinite(pq)) {
    c->status = kNan, c->error = NAN, c->done = 1;
    return;
  }
  if (pq <= 0.0) {
    c->status = kNotSpd, c->done = 1;
    return;
  }
  c->iterations += 1;
  if (!isfinite(c->rz_new + c->rr + c->zz + c->ee)) {
    c->status = kNan, c->error = NAN, c->done = 1;
    return;
  }
  c->error = criterion_value(*c, s.criterion);
  if (c->error <= s.tolerance) {
    c->status = kConverged, c->done = 1;
  } else if (c->iterations >= s.max_iterations) {
    c->status = kMaxIterations, c->done = 1;
  } else if (!(c->rz_new > 0.0)) {
    c->status = kPreconditionerNotSpd, c->done = 1;
  } else {
    c->beta = c->rz_new / c->rz;
    c->rz = c->rz_new;
  }
  c->pq = c->rz_new = c->rr = c->zz = 0.0;
  if (s.criterion == kError) c->ee = 0.0;
}

template <class V, int kDiagonals>
__global__ void __launch_bounds__(kBlock) cg_residual(DeviceDia<V> a,
                                                      const double* __restrict__ b,
                                                      const double* __restrict__ x,
                                                      CgDeviceScalars* scalars) {
  const long long i = static_cast<long long>(blockIdx.x) * kBlock + threadIdx.x;
  double v[1] = {0.0};
  if (i < a.n) {
    const double ri =
        b[i] - dia_row<V, kDiagonals>(a, i, [&](long long j) { return __ldg(x + j); }, __ldg(x + i));
    v[0] = ri * ri;
  }
  double* const out[1] = {&scalars->rr};
  block_add(v, out);
}

unsigned blocks(long long n) { return unsigned((n + kBlock - 1) / kBlock); }

// Calls f with the unroll bucket for a.ndiag (<= kMaxGpuDiagonals).
template <class V, class F>
void with_bucket(const DeviceDia<V>& a, F&& f) {
  if (a.ndiag <= 16) {
    f(std::integral_constant<int, 16>());
  } else if (a.ndiag <= 32) {
    f(std::integral_constant<int, 32>());
  } else {
    f(std::integral_constant<int, kMaxGpuDiagonals>());
  }
}

}  // namespace

template <class V>
void launch_cg_start(const DeviceDia<V>& a, const double* b, double* x, double* r, double* z,
                     double* p, const double* solution, bool use_guess, CgDeviceSettings s,
                     CgDeviceScalars* scalars, cudaStream_t stream) {
  with_bucket(a, [&](auto bucket) {
    cg_start<V, decltype(bucket)::value><<<blocks(a.n), kBlock, 0, stream>>>(
        a, b, x, r, z, p, solution, use_guess ? 1 : 0, s, scalars);
  });
  if (!use_guess) cg_zero<<<blocks(a.n), kBlock, 0, stream>>>(x, a.n);
}

template <class V>
void launch_cg_iteration(const DeviceDia<V>& a, double* x, double* r, double* z,
                         const double* p_old, double* p_new, double* q, const double* solution,
                         CgDeviceSettings s, CgDeviceScalars* scalars, cudaStream_t stream) {
  with_bucket(a, [&](auto bucket) {
    cg_product<V, decltype(bucket)::value><<<blocks(a.n), kBlock, 0, stream>>>(a, z, p_old, p_new,
                                                                               q, scalars);
  });
  cg_update<V><<<blocks(a.n), kBlock, 0, stream>>>(a, p_new, q, x, r, z, solution, s, scalars);
  cg_finalize<<<1, 1, 0, stream>>>(s, scalars);
}

template <class V>
void launch_cg_true_residual(const DeviceDia<V>& a, const double* b, const double* x,
                             CgDeviceScalars* scalars, cudaStream_t stream) {
  with_bucket(a, [&](auto bucket) {
    cg_residual<V, decltype(bucket)::value><<<blocks(a.n), kBlock, 0, stream>>>(a, b, x, scalars);
  });
}

template void launch_cg_start<double>(const DeviceDia<double>&, const double*, double*, double*,
                                      double*, double*, const double*, bool, CgDeviceSettings,
                                      CgDeviceScalars*, cudaStream_t);
template void launch_cg_start<float>(const DeviceDia<float>&, const double*, double*, double*,
                                     double*, double*, const double*, bool, CgDeviceSettings,
                                     CgDeviceScalars*, cudaStream_t);
template void launch_cg_iteration<double>(const DeviceDia<double>&, double*, double*, double*,
                                          const double*, double*, double*, const double*,
                                          CgDeviceSettings, CgDeviceScalars*, cudaStream_t);
template void launch_cg_iteration<float>(const DeviceDia<float>&, double*, double*, double*,
                                         const double*, double*, double*, const double*,
                                         CgDeviceSettings, CgDeviceScalars*, cudaStream_t);
template void launch_cg_true_residual<double>(const DeviceDia<double>&, const double*,
                                              const double*, CgDeviceScalars*, cudaStream_t);
template void launch_cg_true_residual<float>(const DeviceDia<float>&, const double*,
                                             const double*, CgDeviceScalars*, cudaStream_t);

}  // namespace switchyard::cg::cuda
