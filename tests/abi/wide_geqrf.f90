! SGEQRF of a column of 2^31 + 1 ones, built with -fdefault-integer-8 and linked with
! libswitchyard64.so: M and LDA pass 2^31, so the call runs on the CPU TSQR, which takes 64-bit
! row counts. The exact factorization is known: beta = -sqrt(m), tau = 1 + 1/sqrt(m), and every
! entry of v below the diagonal 1 / (1 + sqrt(m)).
program wide_geqrf
  implicit none
  integer :: m, n, lda, lwork, info, i, worst
  real, allocatable :: a(:)
  real :: tau(1), work(64), root, r_expected, tau_expected, v_expected, error, largest
  m = 2**31 + 1
  n = 1
  lda = m
  lwork = size(work)
  allocate(a(m))
  a = 1.0
  call sgeqrf(m, n, a, lda, tau, work, lwork, info)
  root = sqrt(real(m, kind=8))
  r_expected = -root
  tau_expected = 1.0 + 1.0 / root
  v_expected = 1.0 / (1.0 + root)
  largest = 0.0
  worst = 0
  do i = 2, m
    error = abs(a(i) - v_expected)
    if (error > largest) then
      largest = error
      worst = i
    end if
  end do
  print '(a, i0, a, es14.7, a, es14.7)', 'info ', info, '  R(1,1) ', a(1), '  tau ', tau(1)
  print '(a, es10.3, a, i0)', 'largest error of v ', largest / v_expected, ' at row ', worst
  if (info /= 0 .or. abs(a(1) - r_expected) > 1e-4 * root .or. &
      abs(tau(1) - tau_expected) > 1e-5 .or. largest > 1e-4 * v_expected .or. work(1) < 1) then
    print '(a)', 'FAIL'
    stop 1
  end if
  print '(a)', 'PASS: all checks'
end program wide_geqrf
