// Kernels of the sparse CG on half-storage DIA. An iteration is three
// launches: the product (p update and p'Ap folded in), the x, r, z update
// (each block first adds the product's partials itself, in the same order
// as every other block, to get alpha), and a one-block finalize that adds
// all partials and takes the iteration's decisions.
#include <cmath>
#include <type_traits>

#include "block_sums.cuh"
#include "cg_kernels.hpp"
#include "dia_rows.cuh"

namespace switchyard::cg::cuda {
namespace {

constexpr int R = kCgRowsPerThread;

// Status codes of switchyard.h, repeated so that device code needs no host
// header.
constexpr int kConverged = 0, kMaxIterations = 1, kNotSpd = 2, kPreconditionerNotSpd = 3,
              kNan = 4;

// Columns of the partial sums.
constexpr int kPq = 0;      // product: p'Ap
constexpr int kUpdate = 1;  // update: r'z, r'r, z'z, ee (4 columns)

template <class V, int kDiagonals>
__global__ void __launch_bounds__(kBlock) cg_start(DeviceDia<V> a, const double* __restrict__ b,
                                                   double* __restrict__ x,
                                                   double* __restrict__ r,
                                                   double* __restrict__ z,
                                                   double* __restrict__ p,
                                                   const double* __restrict__ solution,
                                                   int use_guess, CgDeviceSettings s,
                                                   Partials partials) {
  double v[6] = {0, 0, 0, 0, 0, 0};
  for_each_row<R>(a.n, [&](long long i) {
    double ax = 0.0;
    // x is read here and written only without a guess, when it is not read.
    if (use_guess) {
      ax = dia_row<V, kDiagonals>(a, i, __ldg(x + i), [&](long long j) { return __ldg(x + j); });
    } else {
      x[i] = 0.0;
    }
    const double bi = b[i], ri = bi - ax;
    const double di = double(a.diag[i]);
    const double zi = s.jacobi ? ri / di : ri;
    r[i] = ri;
    z[i] = zi;
    p[i] = 0.0;
    v[0] += bi * bi;
    v[1] += ri * zi;
    v[2] += ri * ri;
    v[3] += zi * zi;
    if (s.criterion == kPreconditioned) {
      v[4] += (bi / di) * (bi / di);
    } else if (s.criterion == kError) {
      const double xi = use_guess ? x[i] : 0.0;
      v[4] += solution[i] * solution[i];
      v[5] += (xi - solution[i]) * (xi - solution[i]);
    }
  });
  write_partials(v, partials.values, partials.blocks, 0);
}

// One block: scalars->sums[k] = the total of partial column k < N.
template <int N>
__global__ void __launch_bounds__(kBlock) cg_collect(Partials partials, int count,
                                                     CgDeviceScalars* scalars) {
  double t[N];
  sum_partials(partials.values, partials.blocks, count, 0, t);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < N; ++k) scalars->sums[k] = t[k];
  }
}

// Blocks per SM the product's batched rows are held to. Unbounded, forming
// p from z and p_old at each of the 26 vector entries a row reads (52
// loads) takes 91 registers, two blocks of 256 per SM; held to more blocks,
// the compiler issues the loads in smaller groups with more rows in flight.
// On the H200 (switchyard bench cg, 256^3) 3 / 4 / 6 / 8 blocks (68 / 64 /
// 40 / 32 registers) ran an iteration in 1.44 / 1.21 / 1.05 / 1.08 ms,
// against 1.19 ms diagonal by diagonal.
constexpr int kProductMinBlocks = 6;

// q = A p_new and p_new'q, where p_new = z + beta p_old is formed on the fly
// for every row read and stored for the rows owned. Rows of up to
// kBatchedDiagonals lower diagonals issue their loads at once; both row
// forms add in the same order, so q is the same either way.
template <class V, int kDiagonals>
__global__ void __launch_bounds__(kBlock, kDiagonals <= kBatchedDiagonals ? kProductMinBlocks : 1)
    cg_product(DeviceDia<V> a, const double* __restrict__ z, const double* __restrict__ p_old,
               double* __restrict__ p_new, double* __restrict__ q,
               const CgDeviceScalars* scalars, Partials partials) {
  if (scalars->done) return;
  const double beta = scalars->beta;
  const auto p_at = [&](long long j) { return __ldg(z + j) + beta * __ldg(p_old + j); };
  double v[1] = {0.0};
  for_each_row<R>(a.n, [&](long long i) {
    const double pi = p_at(i);
    double qi;
    if constexpr (kDiagonals <= kBatchedDiagonals) {
      qi = dia_row_batched<V, kDiagonals>(a, i, pi, p_at);
    } else {
      qi = dia_row<V, kDiagonals>(a, i, pi, p_at);
    }
    p_new[i] = pi;
    q[i] = qi;
    v[0] += pi * qi;
  });
  write_partials(v, partials.values, partials.blocks, kPq);
}

// Calls f with the product's unroll bucket for a.ndiag: the batched one up
// to kBatchedDiagonals, with_bucket's beyond.
template <class V, class F>
void with_product_bucket(const DeviceDia<V>& a, F&& f) {
  if (a.ndiag <= kBatchedDiagonals) {
    f(std::integral_constant<int, kBatchedDiagonals>());
  } else {
    with_bucket(a, f);
  }
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
                                                    const CgDeviceScalars* scalars,
                                                    Partials partials, int product_blocks) {
  if (scalars->done) return;
  double pq[1];
  sum_partials(partials.values, partials.blocks, product_blocks, kPq, pq);
  if (!(pq[0] > 0.0) || !isfinite(pq[0])) return;
  const double alpha = scalars->rz / pq[0];
  double v[4] = {0, 0, 0, 0};
  for_each_row<R>(a.n, [&](long long i) {
    const double xi = x[i] + alpha * p[i];
    const double ri = r[i] - alpha * q[i];
    const double zi = s.jacobi ? ri / double(__ldg(a.diag + i)) : ri;
    x[i] = xi;
    r[i] = ri;
    z[i] = zi;
    v[0] += ri * zi;
    v[1] += ri * ri;
    v[2] += zi * zi;
    if (s.criterion == kError) v[3] += (xi - solution[i]) * (xi - solution[i]);
  });
  write_partials(v, partials.values, partials.blocks, kUpdate);
}

__device__ double criterion_value(double rr, double zz, double ee, const CgDeviceScalars& c,
                                  int criterion) {
  switch (criterion) {
    case kPreconditioned: return sqrt(zz) / sqrt(c.dd);
    case kError: return c.dd > 0.0 ? sqrt(ee) / sqrt(c.dd) : sqrt(ee);
    default: return sqrt(rr) / sqrt(c.bb);
  }
}

// One block: the totals of the iteration, then (thread 0) its decisions, in
// the host CG's order.
__global__ void __launch_bounds__(kBlock) cg_finalize(CgDeviceSettings s, CgDeviceScalars* c,
                                                      Partials partials, int update_blocks,
                                                      int product_blocks) {
  if (c->done) return;
  double pq[1], t[4];
  sum_partials(partials.values, partials.blocks, product_blocks, kPq, pq);
  // Without a positive p'Ap the update wrote no partials; they are not used.
  sum_partials(partials.values, partials.blocks, update_blocks, kUpdate, t);
  if (threadIdx.x != 0) return;
  if (!isfinite(pq[0])) {
    c->status = kNan, c->error = NAN, c->done = 1;
    return;
  }
  if (pq[0] <= 0.0) {
    c->status = kNotSpd, c->done = 1;
    return;
  }
  c->iterations += 1;
  const double rz_new = t[0], rr = t[1], zz = t[2], ee = t[3];
  if (!isfinite(rz_new + rr + zz + ee)) {
    c->status = kNan, c->error = NAN, c->done = 1;
    return;
  }
  c->error = criterion_value(rr, zz, ee, *c, s.criterion);
  if (c->error <= s.tolerance) {
    c->status = kConverged, c->done = 1;
  } else if (c->iterations >= s.max_iterations) {
    c->status = kMaxIterations, c->done = 1;
  } else if (!(rz_new > 0.0)) {
    c->status = kPreconditionerNotSpd, c->done = 1;
  } else {
    c->beta = rz_new / c->rz;
    c->rz = rz_new;
  }
}

template <class V, int kDiagonals>
__global__ void __launch_bounds__(kBlock) cg_residual(DeviceDia<V> a,
                                                      const double* __restrict__ b,
                                                      const double* __restrict__ x,
                                                      Partials partials) {
  double v[1] = {0.0};
  for_each_row<R>(a.n, [&](long long i) {
    const double ri =
        b[i] - dia_row<V, kDiagonals>(a, i, __ldg(x + i), [&](long long j) { return __ldg(x + j); });
    v[0] += ri * ri;
  });
  write_partials(v, partials.values, partials.blocks, 0);
}

}  // namespace

int grid_blocks(int device) {
  int sms = 0, threads = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  return sms > 0 && threads >= kBlock ? sms * (threads / kBlock) : 1;
}

template <class V>
void launch_cg_start(const DeviceDia<V>& a, const double* b, double* x, double* r, double* z,
                     double* p, const double* solution, bool use_guess, CgDeviceSettings s,
                     CgDeviceScalars* scalars, Partials partials, cudaStream_t stream) {
  const unsigned blocks = grid_for(a.n, R, partials.blocks);
  with_bucket(a, [&](auto bucket) {
    cg_start<V, decltype(bucket)::value><<<blocks, kBlock, 0, stream>>>(
        a, b, x, r, z, p, solution, use_guess ? 1 : 0, s, partials);
  });
  cg_collect<6><<<1, kBlock, 0, stream>>>(partials, int(blocks), scalars);
}

template <class V>
int cg_product_blocks(const DeviceDia<V>& a, int max_blocks) {
  int blocks = 0;
  with_product_bucket(a, [&](auto bucket) {
    blocks = resident_blocks<cg_product<V, decltype(bucket)::value>>(max_blocks);
  });
  return blocks;
}

template <class V>
void launch_cg_iteration(const DeviceDia<V>& a, double* x, double* r, double* z,
                         const double* p_old, double* p_new, double* q, const double* solution,
                         CgDeviceSettings s, CgDeviceScalars* scalars, Partials partials,
                         int product_blocks, cudaStream_t stream) {
  const unsigned product_grid = grid_for(a.n, R, product_blocks);
  with_product_bucket(a, [&](auto bucket) {
    cg_product<V, decltype(bucket)::value><<<product_grid, kBlock, 0, stream>>>(
        a, z, p_old, p_new, q, scalars, partials);
  });
  const unsigned blocks = grid_for(a.n, R, partials.blocks);
  cg_update<V><<<blocks, kBlock, 0, stream>>>(a, p_new, q, x, r, z, solution, s, scalars,
                                              partials, int(product_grid));
  cg_finalize<<<1, kBlock, 0, stream>>>(s, scalars, partials, int(blocks), int(product_grid));
}

template <class V>
void launch_cg_true_residual(const DeviceDia<V>& a, const double* b, const double* x,
                             CgDeviceScalars* scalars, Partials partials, cudaStream_t stream) {
  const unsigned blocks = grid_for(a.n, R, partials.blocks);
  with_bucket(a, [&](auto bucket) {
    cg_residual<V, decltype(bucket)::value><<<blocks, kBlock, 0, stream>>>(a, b, x, partials);
  });
  cg_collect<1><<<1, kBlock, 0, stream>>>(partials, int(blocks), scalars);
}

#define SWITCHYARD_CG_INSTANTIATE(V)                                                          \
  template void launch_cg_start<V>(const DeviceDia<V>&, const double*, double*, double*,      \
                                   double*, double*, const double*, bool, CgDeviceSettings,   \
                                   CgDeviceScalars*, Partials, cudaStream_t);                 \
  template int cg_product_blocks<V>(const DeviceDia<V>&, int);                                \
  template void launch_cg_iteration<V>(const DeviceDia<V>&, double*, double*, double*,        \
                                       const double*, double*, double*, const double*,        \
                                       CgDeviceSettings, CgDeviceScalars*, Partials, int,     \
                                       cudaStream_t);                                         \
  template void launch_cg_true_residual<V>(const DeviceDia<V>&, const double*, const double*, \
                                           CgDeviceScalars*, Partials, cudaStream_t);
SWITCHYARD_CG_INSTANTIATE(double)
SWITCHYARD_CG_INSTANTIATE(float)
#undef SWITCHYARD_CG_INSTANTIATE

}  // namespace switchyard::cg::cuda
