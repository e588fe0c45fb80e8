// The exported names of libswitchyard.so, as a program sees them.
#pragma once

#include <cstddef>

extern "C" {
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*,
            const float*, const int*, const float*, const int*, const float*, float*, const int*,
            std::size_t, std::size_t);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
            const double*, const int*, const double*, const int*, const double*, double*,
            const int*, std::size_t, std::size_t);
void dgemm(const char*, const char*, const int*, const int*, const int*, const double*,
           const double*, const int*, const double*, const int*, const double*, double*,
           const int*, std::size_t, std::size_t);
void sgeqrf_(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void dgeqrf(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*,
             const int*, int*);
void dormqr_(const char*, const char*, const int*, const int*, const int*, const double*,
             const int*, const double*, double*, const int*, double*, const int*, int*,
             std::size_t, std::size_t);
void cblas_dgemm(int, int, int, int, int, int, double, const double*, int, const double*, int,
                 double, double*, int);
void cblas_sgemm(int, int, int, int, int, int, float, const float*, int, const float*, int,
                 float, float*, int);
int LAPACKE_dgeqrf(int, int, int, double*, int, double*);
int LAPACKE_sgeqrf(int, int, int, float*, int, float*);
int LAPACKE_dgeqrf_work(int, int, int, double*, int, double*, double*, int);
}

// Typed access for the tests that run in both precisions.
template <class T> struct Abi;
template <> struct Abi<float> {
  static constexpr auto gemm = sgemm_;
  static constexpr auto geqrf = sgeqrf_;
  static constexpr auto cblas_gemm = cblas_sgemm;
  static constexpr auto lapacke_geqrf = LAPACKE_sgeqrf;
};
template <> struct Abi<double> {
  static constexpr auto gemm = dgemm_;
  static constexpr auto geqrf = dgeqrf_;
  static constexpr auto cblas_gemm = cblas_dgemm;
  static constexpr auto lapacke_geqrf = LAPACKE_dgeqrf;
};

// CBLAS and LAPACKE constants.
constexpr int cblas_row_major = 101, cblas_col_major = 102;
constexpr int cblas_no_trans = 111, cblas_trans = 112, cblas_conj_trans = 113;
