C     F77_PROGRAM: a Fortran 77 program linked against Switchyard, as a
C     user's program would be, calling DGEMM and DGEQRF through the
C     Fortran ABI (hidden string lengths, arguments by reference) and
C     checking every result against its own loops.
C
C     Prints one PASS or FAIL line per check; exit status 1 if any
C     check failed.
C
      PROGRAM F77PRG
      IMPLICIT NONE
C
C     Arrays for the QR checks, sized for the largest case: a tall,
C     skinny matrix of the shape Switchyard's TSQR routes are for.
      INTEGER MQ, NQ, LWMAX
      PARAMETER (MQ = 20000, NQ = 40, LWMAX = 20000)
      DOUBLE PRECISION A(MQ, NQ), AF(MQ, NQ), Q(MQ, NQ), R(NQ, NQ)
      DOUBLE PRECISION TAU(NQ), WORK(LWMAX)
C
      DOUBLE PRECISION DNAN
      INTEGER*8 NANBIT
      INTEGER NFAIL
C
C     A quiet NaN from its IEEE bits: C = NaN must not leak into the
C     result of a GEMM with BETA = 0, nor A and B into one with
C     ALPHA = 0, since BLAS does not read them then.
      DATA NANBIT / Z'7FF8000000000000' /
      DNAN = TRANSFER(NANBIT, DNAN)
C
      NFAIL = 0
C
C     Every transpose combination, in both cases of letter ('C' is the
C     transpose for real matrices), with BETA = 0 on a poisoned C,
C     ALPHA = 0 on poisoned A and B, and K = 0.
      CALL CHKGEM('N', 'N', 13, 17,  9,  1.0D0,  0.0D0, DNAN, NFAIL)
      CALL CHKGEM('T', 'N', 13, 17,  9, -0.5D0,  2.0D0, DNAN, NFAIL)
      CALL CHKGEM('N', 'T', 20,  7, 11,  2.0D0,  0.0D0, DNAN, NFAIL)
      CALL CHKGEM('T', 'T',  8, 12, 30,  0.25D0, -1.0D0, DNAN, NFAIL)
      CALL CHKGEM('c', 'n', 31,  5, 16,  1.5D0,  0.5D0, DNAN, NFAIL)
      CALL CHKGEM('n', 'c',  6, 29,  3, -1.0D0,  1.0D0, DNAN, NFAIL)
      CALL CHKGEM('N', 'N', 10, 10, 10,  0.0D0,  0.5D0, DNAN, NFAIL)
      CALL CHKGEM('N', 'N',  5,  6,  0,  1.0D0,  3.0D0, DNAN, NFAIL)
C
C     QR of a matrix with more rows than columns, fewer rows than
C     columns, and a tall, skinny one.
      CALL CHKGQR(60, 25, A, AF, Q, MQ, R, NQ, TAU, WORK, LWMAX, NFAIL)
      CALL CHKGQR(25, 40, A, AF, Q, MQ, R, NQ, TAU, WORK, LWMAX, NFAIL)
      CALL CHKGQR(MQ, 12, A, AF, Q, MQ, R, NQ, TAU, WORK, LWMAX, NFAIL)
C
      IF (NFAIL .NE. 0) THEN
         WRITE (*, '(A, I3, A)') 'FAIL: ', NFAIL, ' checks failed'
         STOP 1
      END IF
      WRITE (*, '(A)') 'PASS: all checks'
      END
C
C     CHKGEM: C := ALPHA op(A) op(B) + BETA C through DGEMM, checked
C     against the same product by loops. C is held in a larger array
C     than M x N (LDC > M, extra columns) filled with a sentinel, which
C     DGEMM must leave alone. The entries are multiples of 1/4 and
C     ALPHA and BETA dyadic, so the exact result is representable.
C
      SUBROUTINE CHKGEM(TRANSA, TRANSB, M, N, K, ALPHA, BETA, DNAN,
     $                  NFAIL)
      IMPLICIT NONE
      CHARACTER TRANSA, TRANSB
      INTEGER M, N, K, NFAIL
      DOUBLE PRECISION ALPHA, BETA, DNAN
C
      INTEGER LD
      DOUBLE PRECISION SENTNL
      PARAMETER (LD = 40, SENTNL = -999.0D0)
      DOUBLE PRECISION A(LD, LD), B(LD, LD), C(LD, LD), CREF(LD, LD)
      DOUBLE PRECISION OPA, OPB, S
      INTEGER I, J, L
      LOGICAL TA, TB, LSAME, OK
      EXTERNAL DGEMM, LSAME
C
      TA = .NOT. LSAME(TRANSA, 'N')
      TB = .NOT. LSAME(TRANSB, 'N')
C
C     Operands, all NaN when ALPHA = 0 as DGEMM must not read them.
      DO 20 J = 1, LD
         DO 10 I = 1, LD
            A(I, J) = DBLE(MOD(7 * I + 3 * J, 11) - 5) / 4.0D0
            B(I, J) = DBLE(MOD(5 * I + 2 * J, 13) - 6) / 4.0D0
            IF (ALPHA .EQ. 0.0D0) THEN
               A(I, J) = DNAN
               B(I, J) = DNAN
            END IF
            IF (I .LE. M .AND. J .LE. N) THEN
               C(I, J) = DBLE(MOD(I + 4 * J, 9) - 4) / 4.0D0
               IF (BETA .EQ. 0.0D0) C(I, J) = DNAN
            ELSE
               C(I, J) = SENTNL
            END IF
   10    CONTINUE
   20 CONTINUE
C
C     The reference, read through the transposes by index.
      DO 50 J = 1, N
         DO 40 I = 1, M
            S = 0.0D0
            IF (ALPHA .NE. 0.0D0) THEN
               DO 30 L = 1, K
                  OPA = A(I, L)
                  IF (TA) OPA = A(L, I)
                  OPB = B(L, J)
                  IF (TB) OPB = B(J, L)
                  S = S + OPA * OPB
   30          CONTINUE
            END IF
            CREF(I, J) = ALPHA * S
            IF (BETA .NE. 0.0D0) CREF(I, J) = CREF(I, J) + BETA*C(I, J)
   40    CONTINUE
   50 CONTINUE
C
      CALL DGEMM(TRANSA, TRANSB, M, N, K, ALPHA, A, LD, B, LD, BETA,
     $           C, LD)
C
C     Written as .NOT. (... .LE. ...) so that a NaN entry fails.
      OK = .TRUE.
      DO 70 J = 1, LD
         DO 60 I = 1, LD
            IF (I .LE. M .AND. J .LE. N) THEN
               IF (.NOT. (ABS(C(I, J) - CREF(I, J)) .LE. 1.0D-12))
     $            OK = .FALSE.
            ELSE IF (C(I, J) .NE. SENTNL) THEN
               OK = .FALSE.
            END IF
   60    CONTINUE
   70 CONTINUE
      CALL REPORT(OK, 'dgemm', TRANSA // TRANSB, M, N, K, ALPHA, BETA,
     $            NFAIL)
      END
C
C     CHKGQR: the QR factorisation of an M x N matrix by DGEQRF, with
C     the workspace query first, checked by forming Q with DORGQR:
C     A - Q R and Q**T Q - I must be at rounding level.
C
      SUBROUTINE CHKGQR(M, N, A, AF, Q, LDA, R, LDR, TAU, WORK, LWMAX,
     $                  NFAIL)
      IMPLICIT NONE
      INTEGER M, N, LDA, LDR, LWMAX, NFAIL
      DOUBLE PRECISION A(LDA, *), AF(LDA, *), Q(LDA, *), R(LDR, *)
      DOUBLE PRECISION TAU(*), WORK(*)
C
      DOUBLE PRECISION THRESH
      PARAMETER (THRESH = 30.0D0)
      DOUBLE PRECISION S, ANORM, RESID, ORTH, EPS
      INTEGER I, J, L, K, LWORK, INFO
      LOGICAL OK
      DOUBLE PRECISION DLAMCH
      EXTERNAL DGEQRF, DORGQR, DLAMCH
C
      K = MIN(M, N)
      EPS = DLAMCH('Epsilon')
      ANORM = 0.0D0
      DO 20 J = 1, N
         DO 10 I = 1, M
            A(I, J) = DBLE(MOD(13 * I * J + 31 * I + 17 * J, 101))
     $                / 101.0D0 - 0.5D0
            AF(I, J) = A(I, J)
            ANORM = ANORM + A(I, J)**2
   10    CONTINUE
   20 CONTINUE
      ANORM = SQRT(ANORM)
C
C     The workspace query must succeed and ask for at least N.
      CALL DGEQRF(M, N, AF, LDA, TAU, WORK, -1, INFO)
      LWORK = INT(WORK(1))
      OK = INFO .EQ. 0 .AND. LWORK .GE. MAX(1, N) .AND.
     $     LWORK .LE. LWMAX
      CALL REPORT(OK, 'dgeqrf', 'query', M, N, LWORK, 0.0D0, 0.0D0,
     $            NFAIL)
      IF (.NOT. OK) RETURN
C
      CALL DGEQRF(M, N, AF, LDA, TAU, WORK, LWORK, INFO)
      IF (INFO .NE. 0) THEN
         CALL REPORT(.FALSE., 'dgeqrf', 'info', M, N, INFO, 0.0D0,
     $               0.0D0, NFAIL)
         RETURN
      END IF
C
C     R is the upper trapezoid of the first K rows; Q the first K
C     columns of the product of the reflectors.
      DO 40 J = 1, N
         DO 30 I = 1, K
            R(I, J) = 0.0D0
            IF (I .LE. J) R(I, J) = AF(I, J)
   30    CONTINUE
   40 CONTINUE
      DO 60 J = 1, K
         DO 50 I = 1, M
            Q(I, J) = AF(I, J)
   50    CONTINUE
   60 CONTINUE
      CALL DORGQR(M, K, K, Q, LDA, TAU, WORK, LWMAX, INFO)
      IF (INFO .NE. 0) THEN
         CALL REPORT(.FALSE., 'dorgqr', 'info', M, K, INFO, 0.0D0,
     $               0.0D0, NFAIL)
         RETURN
      END IF
C
C     || A - Q R ||_F / (||A||_F max(M,N) eps)
      RESID = 0.0D0
      DO 90 J = 1, N
         DO 80 I = 1, M
            S = A(I, J)
            DO 70 L = 1, MIN(J, K)
               S = S - Q(I, L) * R(L, J)
   70       CONTINUE
            RESID = RESID + S**2
   80    CONTINUE
   90 CONTINUE
      RESID = SQRT(RESID) / (ANORM * DBLE(MAX(M, N)) * EPS)
C
C     || Q**T Q - I ||_F / (M eps)
      ORTH = 0.0D0
      DO 120 J = 1, K
         DO 110 I = 1, K
            S = 0.0D0
            IF (I .EQ. J) S = -1.0D0
            DO 100 L = 1, M
               S = S + Q(L, I) * Q(L, J)
  100       CONTINUE
            ORTH = ORTH + S**2
  110    CONTINUE
  120 CONTINUE
      ORTH = SQRT(ORTH) / (DBLE(M) * EPS)
C
      OK = RESID .LE. THRESH .AND. ORTH .LE. THRESH
      CALL REPORT(OK, 'dgeqrf', 'A=QR', M, N, K, RESID, ORTH, NFAIL)
      END
C
C     REPORT: one line per check, PASS or FAIL, with what was checked;
C     a failure is counted in NFAIL.
C
      SUBROUTINE REPORT(OK, NAME, WHAT, M, N, K, X, Y, NFAIL)
      IMPLICIT NONE
      LOGICAL OK
      CHARACTER*(*) NAME, WHAT
      INTEGER M, N, K, NFAIL
      DOUBLE PRECISION X, Y
      CHARACTER*4 VERDCT
C
      VERDCT = 'PASS'
      IF (.NOT. OK) THEN
         VERDCT = 'FAIL'
         NFAIL = NFAIL + 1
      END IF
      WRITE (*, '(A4, 1X, A6, 1X, A5, 3I7, 2(1PE11.3))') VERDCT, NAME,
     $   WHAT, M, N, K, X, Y
      END
