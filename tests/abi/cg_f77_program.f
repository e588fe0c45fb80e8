C     CG_F77_PROGRAM: a Fortran 77 program that builds a small finite-
C     element matrix (3-D Poisson, trilinear hexahedra, 27-point
C     coupling) and solves it through Switchyard's Fortran 77 CG entry
C     points (CSR, SLAP triad, DIA) and SLATEC's DSDCG, all arguments by
C     reference. u = 0 on x = 0 and du/dn = 1 on x = 1 give the exact
C     solution u = x at every node.
C
C     Prints one PASS or FAIL line per check; exit status 1 if any
C     check failed.
C
      PROGRAM CGF77
      IMPLICIT NONE
      INTEGER NX, NY, NZ, N, MAXNZ, NDIAG
      PARAMETER (NX = 5, NY = 4, NZ = 3, N = NX*NY*NZ, MAXNZ = 27*N)
      PARAMETER (NDIAG = 14)
      INTEGER ROWPTR(N+1), COLIDX(MAXNZ), IA(MAXNZ), JA(MAXNZ)
      INTEGER IOFF(NDIAG), IWORK(10)
      DOUBLE PRECISION VAL(MAXNZ), A(MAXNZ), B(N), X(N)
      DOUBLE PRECISION DIAGS(N, NDIAG), RWORK(5*N)
      DOUBLE PRECISION SOLN(N)
      COMMON /DSLBLK/ SOLN
      DOUBLE PRECISION AIJ, TOL, RELRES, ERR
      INTEGER I, J, K, NNZ, NELT, ITER, ISTAT, IERR, NFAIL
      INTEGER DX, DY, DZ, M
      DOUBLE PRECISION FEMA, FEMB
      EXTERNAL FEMA, FEMB
C
      NFAIL = 0
      DO 10 I = 1, N
         B(I) = FEMB(I, NX, NY, NZ)
         SOLN(I) = DBLE(MOD(I - 1, NX)) / DBLE(NX - 1)
   10 CONTINUE
C
C     CSR, all entries, 1-based; and the lower triangle as a SLAP
C     triad, written last row first.
      NNZ = 0
      ROWPTR(1) = 1
      DO 30 I = 1, N
         DO 20 J = 1, N
            AIJ = FEMA(I, J, NX, NY, NZ)
            IF (I .EQ. J .OR. AIJ .NE. 0.0D0) THEN
               NNZ = NNZ + 1
               COLIDX(NNZ) = J
               VAL(NNZ) = AIJ
            END IF
   20    CONTINUE
         ROWPTR(I + 1) = NNZ + 1
   30 CONTINUE
      NELT = 0
      DO 50 I = N, 1, -1
         DO 40 J = 1, I
            AIJ = FEMA(I, J, NX, NY, NZ)
            IF (I .EQ. J .OR. AIJ .NE. 0.0D0) THEN
               NELT = NELT + 1
               IA(NELT) = I
               JA(NELT) = J
               A(NELT) = AIJ
            END IF
   40    CONTINUE
   50 CONTINUE
C
C     DIA, lower half: the diagonal and the 13 lower offsets;
C     DIAGS(I, K) = a(I, I + IOFF(K)).
      K = 1
      IOFF(1) = 0
      DO 80 DZ = -1, 1
         DO 70 DY = -1, 1
            DO 60 DX = -1, 1
               M = DX + NX*DY + NX*NY*DZ
               IF (M .GT. 0) THEN
                  K = K + 1
                  IOFF(K) = -M
               END IF
   60       CONTINUE
   70    CONTINUE
   80 CONTINUE
      DO 100 K = 1, NDIAG
         DO 90 I = 1, N
            J = I + IOFF(K)
            DIAGS(I, K) = 0.0D0
            IF (J .GE. 1) DIAGS(I, K) = FEMA(I, J, NX, NY, NZ)
   90    CONTINUE
  100 CONTINUE
C
      TOL = 1.0D-12
      CALL POISON(X, N)
      CALL SWITCHYARD_CG_CSR(N, ROWPTR, COLIDX, VAL, 1, 0, B, X,
     $     TOL, 1000, 1, 0, 0, ITER, RELRES, ISTAT)
      CALL CHECK('CSR', ISTAT, 0, RELRES, X, SOLN, N, NFAIL)
C
      CALL POISON(X, N)
      CALL SWITCHYARD_CG_SLAP_TRIAD(N, NELT, IA, JA, A, 1, B, X,
     $     TOL, 1000, 1, 0, 0, ITER, RELRES, ISTAT)
      CALL CHECK('SLAP TRIAD', ISTAT, 0, RELRES, X, SOLN, N, NFAIL)
C
      CALL POISON(X, N)
      CALL SWITCHYARD_CG_DIA(N, NDIAG, IOFF, DIAGS, 1, B, X,
     $     TOL, 1000, 1, 0, 0, ITER, RELRES, ISTAT)
      CALL CHECK('DIA', ISTAT, 0, RELRES, X, SOLN, N, NFAIL)
C
C     N = 0 is rejected before any work: status -1, X untouched.
      X(1) = 5.0D0
      CALL SWITCHYARD_CG_CSR(0, ROWPTR, COLIDX, VAL, 1, 0, B, X,
     $     TOL, 1000, 1, 0, 0, ITER, RELRES, ISTAT)
      IF (ISTAT .EQ. -1 .AND. X(1) .EQ. 5.0D0) THEN
         WRITE (*, '(A)') 'PASS: N = 0 rejected'
      ELSE
         WRITE (*, '(A, I4)') 'FAIL: N = 0 gave status', ISTAT
         NFAIL = NFAIL + 1
      END IF
C
C     DSDCG on the triad, ITOL = 11: the error against COMMON /DSLBLK/.
      DO 110 I = 1, N
         X(I) = 0.0D0
  110 CONTINUE
      TOL = 1.0D-10
      CALL DSDCG(N, B, X, NELT, IA, JA, A, 1, 11, TOL, 1000, ITER,
     $     ERR, IERR, 0, RWORK, 5*N, IWORK, 10)
      IF (IERR .EQ. 0 .AND. ERR .LE. TOL .AND. ITER .GT. 0 .AND.
     $    JA(N + 1) .EQ. NELT + 1 .AND. IWORK(10) .EQ. 5*N + 1) THEN
         WRITE (*, '(A, I4, A)') 'PASS: DSDCG ITOL = 11 in', ITER,
     $        ' iterations, triad now in column format'
      ELSE
         WRITE (*, '(A, I4, A, I4, 1P, E12.3)') 'FAIL: DSDCG IERR',
     $        IERR, ' ITER', ITER, ERR
         NFAIL = NFAIL + 1
      END IF
      CALL CHECK('DSDCG', IERR, 0, 0.0D0, X, SOLN, N, NFAIL)
C
      IF (NFAIL .EQ. 0) THEN
         WRITE (*, '(A)') 'PASS: all checks'
      ELSE
         WRITE (*, '(I4, A)') NFAIL, ' checks FAILED'
         CALL EXIT(1)
      END IF
      END
C
C     A(I, J) of the assembled matrix, nodes numbered from 1 along x,
C     then y, then z: K1 M1 M1 + M1 K1 M1 + M1 M1 K1 from the 1-D
C     stiffness K1 and mass M1 of linear elements; Dirichlet nodes
C     (x = 0) keep their diagonal and lose their couplings.
      DOUBLE PRECISION FUNCTION FEMA(I, J, NX, NY, NZ)
      IMPLICIT NONE
      INTEGER I, J, NX, NY, NZ
      INTEGER IX, IY, IZ, JX, JY, JZ
      DOUBLE PRECISION S1, M1
      EXTERNAL S1, M1
      IX = MOD(I - 1, NX)
      IY = MOD((I - 1) / NX, NY)
      IZ = (I - 1) / (NX*NY)
      JX = MOD(J - 1, NX)
      JY = MOD((J - 1) / NX, NY)
      JZ = (J - 1) / (NX*NY)
      FEMA = 0.0D0
      IF (ABS(IX - JX) .GT. 1 .OR. ABS(IY - JY) .GT. 1 .OR.
     $    ABS(IZ - JZ) .GT. 1) RETURN
      IF (I .NE. J .AND. (IX .EQ. 0 .OR. JX .EQ. 0)) RETURN
      FEMA = S1(IX, JX, NX) * M1(IY, JY, NY) * M1(IZ, JZ, NZ)
     $     + M1(IX, JX, NX) * S1(IY, JY, NY) * M1(IZ, JZ, NZ)
     $     + M1(IX, JX, NX) * M1(IY, JY, NY) * S1(IZ, JZ, NZ)
      END
C
C     1-D stiffness and mass of linear elements on NN nodes over [0, 1],
C     between nodes I and J (0-based, at most one apart).
      DOUBLE PRECISION FUNCTION S1(I, J, NN)
      IMPLICIT NONE
      INTEGER I, J, NN, NEL
      DOUBLE PRECISION H
      H = 1.0D0 / DBLE(NN - 1)
      NEL = 0
      IF (I .GT. 0) NEL = NEL + 1
      IF (I .LT. NN - 1) NEL = NEL + 1
      IF (I .EQ. J) THEN
         S1 = DBLE(NEL) / H
      ELSE
         S1 = -1.0D0 / H
      END IF
      END
C
      DOUBLE PRECISION FUNCTION M1(I, J, NN)
      IMPLICIT NONE
      INTEGER I, J, NN, NEL
      DOUBLE PRECISION H
      H = 1.0D0 / DBLE(NN - 1)
      NEL = 0
      IF (I .GT. 0) NEL = NEL + 1
      IF (I .LT. NN - 1) NEL = NEL + 1
      IF (I .EQ. J) THEN
         M1 = DBLE(NEL) * H / 3.0D0
      ELSE
         M1 = H / 6.0D0
      END IF
      END
C
C     The right-hand side: the Neumann flux 1 on the face x = 1.
      DOUBLE PRECISION FUNCTION FEMB(I, NX, NY, NZ)
      IMPLICIT NONE
      INTEGER I, NX, NY, NZ, IX, IY, IZ
      DOUBLE PRECISION WY, WZ
      IX = MOD(I - 1, NX)
      IY = MOD((I - 1) / NX, NY)
      IZ = (I - 1) / (NX*NY)
      FEMB = 0.0D0
      IF (IX .NE. NX - 1) RETURN
      WY = 1.0D0 / DBLE(NY - 1)
      IF (IY .GT. 0 .AND. IY .LT. NY - 1) WY = 2.0D0 * WY
      WZ = 1.0D0 / DBLE(NZ - 1)
      IF (IZ .GT. 0 .AND. IZ .LT. NZ - 1) WZ = 2.0D0 * WZ
      FEMB = WY * WZ / 4.0D0
      END
C
      SUBROUTINE POISON(X, N)
      IMPLICIT NONE
      INTEGER N, I
      DOUBLE PRECISION X(N)
      DO 10 I = 1, N
         X(I) = -9.75D0
   10 CONTINUE
      END
C
C     The status must be WANT, the residual below 1e-12 and X within
C     1e-10 of the exact solution.
      SUBROUTINE CHECK(WHAT, ISTAT, WANT, RELRES, X, U, N, NFAIL)
      IMPLICIT NONE
      CHARACTER*(*) WHAT
      INTEGER ISTAT, WANT, N, NFAIL, I
      DOUBLE PRECISION RELRES, X(N), U(N), E
      E = 0.0D0
      DO 10 I = 1, N
         E = MAX(E, ABS(X(I) - U(I)))
   10 CONTINUE
      IF (ISTAT .EQ. WANT .AND. RELRES .LE. 1.0D-12 .AND.
     $    E .LE. 1.0D-10) THEN
         WRITE (*, '(A, A, A, 1P, E10.2)') 'PASS: ', WHAT,
     $        ' solution error', E
      ELSE
         WRITE (*, '(A, A, A, I4, 1P, 2E12.3)') 'FAIL: ', WHAT,
     $        ' status', ISTAT, RELRES, E
         NFAIL = NFAIL + 1
      END IF
      END
