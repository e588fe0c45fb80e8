C     LSQ_FIT: least-squares fit of a degree-7 Chebyshev series to
C     200000 noisy samples on [-1,1].
C
C     The samples are y(t) = sum_j c_j T_j(t) + e(t), with known
C     coefficients c_j and a small deterministic pseudo-noise e, so the
C     fit can be checked: the recovered coefficients must agree with
C     the true ones to well within the noise level, and the residual
C     norm can be no larger than the norm of the noise itself.
C
C     The Chebyshev basis keeps the tall M x N design matrix well
C     conditioned (monomials t**j would not be). The problem is solved
C     by DGELS, which factors the matrix by a Householder QR (DGEQRF).
C
C     Exit status: 0 when the fit is within tolerance, 1 otherwise.
C
      PROGRAM LSQFIT
      IMPLICIT NONE
C
C     M samples, N basis functions, LWMAX the length of WORK.
      INTEGER M, N, LWMAX
      PARAMETER (M = 200000, N = 8, LWMAX = 100000)
C
C     Amplitude of the pseudo-noise, and the largest coefficient error
C     accepted: the noise averaged over M samples is far below TOL.
      DOUBLE PRECISION NOISE, TOL
      PARAMETER (NOISE = 1.0D-3, TOL = 1.0D-4)
C
      DOUBLE PRECISION A(M, N), Y(M), CTRUE(N), WORK(LWMAX)
      DOUBLE PRECISION T, E, ENORM, RNORM, ERRMAX
      INTEGER I, J, LWORK, INFO, SEED
C
      DOUBLE PRECISION DNRM2, UNIFRM
      EXTERNAL DGELS, DNRM2, UNIFRM
C
      DATA CTRUE / 1.0D0, -0.5D0, 0.25D0, 2.0D0,
     $             -1.25D0, 0.75D0, -0.1D0, 0.05D0 /
C
C     Design matrix: column J holds T_(J-1) at the sample points,
C     built by the three-term recurrence T_(k+1) = 2 t T_k - T_(k-1).
C     Right-hand side: the true series plus noise uniform in
C     [-NOISE, NOISE].
      SEED = 20240607
      ENORM = 0.0D0
      DO 20 I = 1, M
         T = -1.0D0 + 2.0D0 * DBLE(I - 1) / DBLE(M - 1)
         A(I, 1) = 1.0D0
         A(I, 2) = T
         DO 10 J = 3, N
            A(I, J) = 2.0D0 * T * A(I, J - 1) - A(I, J - 2)
   10    CONTINUE
         E = NOISE * (2.0D0 * UNIFRM(SEED) - 1.0D0)
         ENORM = ENORM + E * E
         Y(I) = E
         DO 15 J = 1, N
            Y(I) = Y(I) + CTRUE(J) * A(I, J)
   15    CONTINUE
   20 CONTINUE
      ENORM = SQRT(ENORM)
C
C     Workspace query: DGELS returns its optimal LWORK in WORK(1).
C     Less than the optimum, if WORK is shorter, is slower but right.
      LWORK = -1
      CALL DGELS('N', M, N, 1, A, M, Y, M, WORK, LWORK, INFO)
      IF (INFO .NE. 0) THEN
         WRITE (*, '(A, I6)') ' DGELS workspace query failed, INFO =',
     $      INFO
         STOP 1
      END IF
      LWORK = MIN(LWMAX, INT(WORK(1)))
C
C     The fit. On return Y(1:N) holds the coefficients and the norm of
C     Y(N+1:M) is the norm of the residual y - A c.
      CALL DGELS('N', M, N, 1, A, M, Y, M, WORK, LWORK, INFO)
      IF (INFO .NE. 0) THEN
         WRITE (*, '(A, I6)') ' DGELS failed, INFO =', INFO
         STOP 1
      END IF
      RNORM = DNRM2(M - N, Y(N + 1), 1)
C
      WRITE (*, '(A, I7, A, I2, A)') ' Chebyshev fit of ', M,
     $   ' samples, ', N, ' coefficients'
      WRITE (*, '(A4, 2A16, A15)') 'j', 'true', 'fitted', 'error'
      ERRMAX = 0.0D0
      DO 30 J = 1, N
         WRITE (*, '(I4, 2F16.10, 1PE15.3)') J - 1, CTRUE(J), Y(J),
     $      Y(J) - CTRUE(J)
         ERRMAX = MAX(ERRMAX, ABS(Y(J) - CTRUE(J)))
   30 CONTINUE
      WRITE (*, '(A, 1PE16.8)') ' residual norm ', RNORM
      WRITE (*, '(A, 1PE16.8)') ' noise norm    ', ENORM
      WRITE (*, '(A, 1PE16.8)') ' largest error ', ERRMAX
C
C     The residual is the noise less its part in the column space of
C     A, so it cannot exceed the noise (up to rounding).
      IF (ERRMAX .GT. TOL .OR. RNORM .GT. ENORM * (1.0D0 + 1.0D-10))
     $   THEN
         WRITE (*, '(A, 1PE9.2)') ' FIT FAILED: tolerance ', TOL
         STOP 1
      END IF
      WRITE (*, '(A, 1PE9.2)') ' FIT OK: coefficients within ', TOL
      END
C
C     UNIFRM: the next number of the Park-Miller minimal standard
C     generator, uniform in (0,1). Schrage's factorisation keeps every
C     product within 32-bit integers, so the sequence is the same on
C     every machine.
C
      DOUBLE PRECISION FUNCTION UNIFRM(SEED)
      IMPLICIT NONE
      INTEGER SEED
      INTEGER IA, IM, IQ, IR, HI, LO
      PARAMETER (IA = 16807, IM = 2147483647, IQ = 127773, IR = 2836)
      HI = SEED / IQ
      LO = SEED - HI * IQ
      SEED = IA * LO - IR * HI
      IF (SEED .LE. 0) SEED = SEED + IM
      UNIFRM = DBLE(SEED) / DBLE(IM)
      END
