! The sparse CG from Fortran 2003 through the switchyard_cg module: a 1-D
! Laplacian with a Dirichlet end, lower triangle in CSR, 1-based; its
! solution of A x = e_n is x(i) = i. Then a rejected input, by its status.
program cg_f2003_program
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_loc
  use switchyard_cg
  implicit none
  integer(c_int), parameter :: n = 50
  integer(c_int), target :: row_ptr(n + 1), col_idx(2 * n)
  real(c_double), target :: values(2 * n)
  real(c_double) :: b(n), x(n)
  type(switchyard_cg_matrix) :: a
  type(switchyard_cg_options) :: options
  type(switchyard_cg_result) :: result
  integer(c_int) :: i, k, status
  integer :: failures

  failures = 0
  ! Rows of tridiag(-1, 2, -1) but a(n, n) = 1: A x = e_n has x(i) = i.
  k = 0
  row_ptr(1) = 1
  do i = 1, n
    if (i > 1) then
      k = k + 1
      col_idx(k) = i - 1
      values(k) = -1
    end if
    k = k + 1
    col_idx(k) = i
    values(k) = merge(1.0_c_double, 2.0_c_double, i == n)
    row_ptr(i + 1) = k + 1
  end do
  b = 0
  b(n) = 1

  a%format = SWITCHYARD_CG_CSR
  a%symmetry = SWITCHYARD_CG_TRIANGLE
  a%n = n
  a%index_base = 1
  a%row_ptr = c_loc(row_ptr)
  a%col_idx = c_loc(col_idx)
  a%values = c_loc(values)
  call switchyard_cg_options_default(options)
  options%jacobi = 0
  x = -1
  status = switchyard_cg_solve(a, b, x, options, result)
  if (status == SWITCHYARD_CG_CONVERGED .and. result%relative_residual <= 1e-12_c_double &
      .and. maxval(abs(x - [(real(i, c_double), i = 1, n)])) <= 1e-9_c_double) then
    print '(a, i0, a)', 'PASS: converged in ', result%iterations, ' iterations'
  else
    print '(a, a)', 'FAIL: ', switchyard_cg_status(status)
    failures = failures + 1
  end if

  col_idx(3) = n + 1
  status = switchyard_cg_solve(a, b, x, options, result)
  if (status == SWITCHYARD_CG_ERR_INDEX .and. result%bad_entry == 2) then
    print '(a, a)', 'PASS: rejected: ', switchyard_cg_status(status)
  else
    print '(a, i0)', 'FAIL: bad index gave ', status
    failures = failures + 1
  end if

  if (failures == 0) then
    print '(a)', 'PASS: all checks'
  else
    stop 1
  end if
end program
