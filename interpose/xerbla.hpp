// The error handlers in force, looked up at run time so that a program's own
// handler (the BLAS and LAPACK test programs define XERBLA) is the one
// called, exactly as when the program calls its BLAS/LAPACK directly.
//
// Each is the handler of the call's convention C (convention.hpp), with INFO
// in its integers: Lp64 finds the plain names (xerbla_); Ilp64 finds them with
// ilp64_suffix (xerbla_64_ in libswitchyard.so, xerbla_ in libswitchyard64.so);
// the wheels' conventions find the wheel's OpenBLAS's own (scipy_xerbla_,
// scipy_xerbla_64_, scipy_cblas_xerbla64_).
#pragma once

#include "convention.hpp"

namespace switchyard {

// XERBLA(srname, info): `srname` as reference passes it ("DGEMM ", "DGEQRF").
template <class C>
void call_xerbla(const char* srname, Int<C> info);

// cblas_xerbla(info, rout, form, ...) with reference CBLAS's message.
template <class C>
void call_cblas_xerbla(Int<C> info, const char* rout, const char* form, int value);

// Reference CBLAS keeps two globals that its error handlers read; a program
// may define them (the CBLAS test programs do). Null when nobody does.
template <class C>
int* cblas_row_major_flag();
template <class C>
int* cblas_call_from_c_flag();

// LAPACKE_xerbla(name, info) and LAPACKE_get_nancheck().
template <class C>
void call_lapacke_xerbla(const char* name, Int<C> info);
template <class C>
bool lapacke_nancheck();

}  // namespace switchyard
