// The error handlers in force, looked up at run time so that a program's own
// handler (the BLAS and LAPACK test programs define XERBLA) is the one
// called, exactly as when the program calls its BLAS/LAPACK directly.
//
// Each is the handler of the call's convention: I = int finds the plain
// names (xerbla_, INFO an int); I = std::int64_t finds them with
// ilp64_suffix (xerbla_64_ in libswitchyard.so, xerbla_ in
// libswitchyard64.so; INFO 64-bit).
#pragma once

namespace switchyard {

// XERBLA(srname, info): `srname` as reference passes it ("DGEMM ", "DGEQRF").
template <class I>
void call_xerbla(const char* srname, I info);

// cblas_xerbla(info, rout, form, ...) with reference CBLAS's message.
template <class I>
void call_cblas_xerbla(I info, const char* rout, const char* form, int value);

// Reference CBLAS keeps two globals that its error handlers read; a program
// may define them (the CBLAS test programs do). Null when nobody does.
template <class I>
int* cblas_row_major_flag();
template <class I>
int* cblas_call_from_c_flag();

// LAPACKE_xerbla(name, info) and LAPACKE_get_nancheck().
template <class I>
void call_lapacke_xerbla(const char* name, I info);
template <class I>
bool lapacke_nancheck();

}  // namespace switchyard
