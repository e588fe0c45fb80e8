// Feeds the CG API's input validation (cg/read_input.hpp) a matrix
// descriptor built from the input: any format, symmetry, value type, index
// base and size, with index arrays of arbitrary (mostly near-range) content.
// Each array has exactly the length the descriptor promises, so a read past
// what the caller gave is an ASan finding; the validation must only accept
// or reject.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <vector>

#include "cg/read_input.hpp"

namespace {

using namespace switchyard::cg;

// Arrays above this many elements are not built: the validation's cost is
// linear in them and short inputs explore the same paths.
constexpr int kMaxElements = 1 << 12;

// An index near the range [-2, limit + 2], where the checks' edges are, or
// now and then any int.
int index_near(FuzzedDataProvider& in, int limit) {
  // Any int, but one the caller can shift by up to +-kMaxElements.
  if (in.ConsumeIntegralInRange(0, 7) == 0) {
    return in.ConsumeIntegralInRange(INT32_MIN + kMaxElements, INT32_MAX - kMaxElements);
  }
  return in.ConsumeIntegralInRange(-2, limit + 2);
}

std::vector<int> indices(FuzzedDataProvider& in, std::size_t count, int limit) {
  std::vector<int> v(count);
  for (int& x : v) x = index_near(in, limit);
  return v;
}

// Row or column pointers from `first`: mostly small steps (now and then
// backwards), else any int, so that both valid and broken ones are common.
std::vector<int> pointers(FuzzedDataProvider& in, std::size_t count, int first) {
  std::vector<int> v(count);
  long long p = first;
  for (int& x : v) {
    x = in.ConsumeIntegralInRange(0, 7) == 0 ? in.ConsumeIntegral<int>() : int(p);
    p = (long long)x + in.ConsumeIntegralInRange(-1, 4);
    if (p > INT32_MAX || p < INT32_MIN) p = first;
  }
  return v;
}

// Values: mostly small integers, so that mirrored entries often agree; any
// bit pattern (NaN, infinity) otherwise.
template <class V>
std::vector<V> values(FuzzedDataProvider& in, std::size_t count) {
  std::vector<V> v(count);
  for (V& x : v) {
    x = in.ConsumeBool() ? V(in.ConsumeIntegralInRange(-2, 2)) : in.ConsumeFloatingPoint<V>();
  }
  return v;
}

template <class V>
void validate(FuzzedDataProvider& in, switchyard_cg_matrix a) {
  const int n = a.n;
  std::vector<int> row_ptr, col_idx, ia, ja, offsets;
  std::vector<V> vals;
  switch (a.format) {
    case SWITCHYARD_CG_CSR: {
      row_ptr = pointers(in, std::size_t(n) + 1, a.index_base);
      // col_idx and values hold row_ptr[n] - index_base entries, as promised.
      const long long nnz = (long long)row_ptr[std::size_t(n)] - a.index_base;
      if (nnz > kMaxElements) return;
      const std::size_t count = nnz > 0 ? std::size_t(nnz) : 0;
      col_idx = indices(in, count, n);
      vals = values<V>(in, count);
      a.row_ptr = row_ptr.data();
      a.col_idx = count ? col_idx.data() : nullptr;
      break;
    }
    case SWITCHYARD_CG_SLAP_TRIAD:
    case SWITCHYARD_CG_SLAP_COLUMN: {
      a.nelt = in.ConsumeIntegralInRange(0, kMaxElements);
      ia = indices(in, std::size_t(a.nelt), n);
      ja = a.format == SWITCHYARD_CG_SLAP_TRIAD ? indices(in, std::size_t(a.nelt), n)
                                                 : pointers(in, std::size_t(n) + 1, 1);
      vals = values<V>(in, std::size_t(a.nelt));
      a.ia = ia.data();
      a.ja = ja.data();
      break;
    }
    default: {
      a.ndiag = in.ConsumeIntegralInRange(0, 2 * n + 1);
      if ((long long)a.ndiag * n > kMaxElements) return;
      offsets.resize(std::size_t(a.ndiag));
      for (int& o : offsets) o = index_near(in, 2 * n - 2) - (n - 1);  // near (-n, n)
      vals = values<V>(in, std::size_t(a.ndiag) * std::size_t(n));
      a.offsets = offsets.data();
      break;
    }
  }
  a.values = vals.empty() ? nullptr : vals.data();
  if (check_descriptor(a).status) return;
  if (a.format == SWITCHYARD_CG_DIA) {
    DiaHalf<V> out;
    read_dia(a, out);
  } else {
    LowerCsr<V> out;
    read_sparse(a, out);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  switchyard_cg_matrix a{};
  // Enumerators one past each end too, to exercise check_descriptor.
  a.format = in.ConsumeIntegralInRange(SWITCHYARD_CG_CSR - 1, SWITCHYARD_CG_DIA + 1);
  a.symmetry = in.ConsumeIntegralInRange(SWITCHYARD_CG_FULL - 1, SWITCHYARD_CG_TRIANGLE + 1);
  a.value_type = in.ConsumeBool() ? SWITCHYARD_CG_DOUBLE : SWITCHYARD_CG_FLOAT;
  a.index_base = in.ConsumeIntegralInRange(-1, 2);
  a.n = in.ConsumeIntegralInRange(-1, 64);
  if (a.n <= 0 || a.format < SWITCHYARD_CG_CSR || a.format > SWITCHYARD_CG_DIA) {
    check_descriptor(a);  // rejects before any array is read
    return 0;
  }
  if (a.value_type == SWITCHYARD_CG_DOUBLE) {
    validate<double>(in, a);
  } else {
    validate<float>(in, a);
  }
  return 0;
}
