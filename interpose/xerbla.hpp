// The error handlers in force, looked up at run time so that a program's own
// handler (the BLAS and LAPACK test programs define XERBLA) is the one
// called, exactly as when the program calls its BLAS/LAPACK directly.
#pragma once

namespace switchyard {

// XERBLA(srname, info): `srname` as reference passes it ("DGEMM ", "DGEQRF").
void call_xerbla(const char* srname, int info);

// cblas_xerbla(info, rout, form, ...) with reference CBLAS's message.
void call_cblas_xerbla(int info, const char* rout, const char* form, int value);

// Reference CBLAS keeps two globals that its error handlers read; a program
// may define them (the CBLAS test programs do). Null when nobody does.
int* cblas_row_major_flag();
int* cblas_call_from_c_flag();

// LAPACKE_xerbla(name, info) and LAPACKE_get_nancheck().
void call_lapacke_xerbla(const char* name, int info);
bool lapacke_nancheck();

}  // namespace switchyard
