// Finishing a gemm whose device run stopped after writing part of C: the
// blocks of C it left unwritten are computed by another gemm (the fallback),
// each as the same product on its rows of op(A) and its columns of op(B). A
// block reads only the part of C it writes, so the finished parts are never
// read as input.
#pragma once

#include <vector>

#include "calls.hpp"
#include "fallback.hpp"
#include "gemm/streamed_gemm.hpp"

namespace switchyard::gemm {

template <class T>
void finish_blocks(GemmFn<T>* gemm, const GemmCall<T>& g, const std::vector<CBlock>& blocks);

}  // namespace switchyard::gemm
