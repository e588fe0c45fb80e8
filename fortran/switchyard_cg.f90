! Fortran 2003 interface to Switchyard's sparse CG (switchyard.h): the
! enumerators, the matrix, options and result types, and the C functions,
! through iso_c_binding. The arrays a matrix points at must be TARGETs that
! outlive the call; c_loc gives their addresses.
module switchyard_cg
  use, intrinsic :: iso_c_binding, only: c_int, c_long_long, c_double, c_ptr, c_char, &
                                         c_null_ptr, c_null_char, c_f_pointer, c_associated
  implicit none
  private

  ! Matrix formats, storage, value types
  integer(c_int), parameter, public :: SWITCHYARD_CG_CSR = 0, SWITCHYARD_CG_SLAP_TRIAD = 1, &
                                       SWITCHYARD_CG_SLAP_COLUMN = 2, SWITCHYARD_CG_DIA = 3
  integer(c_int), parameter, public :: SWITCHYARD_CG_FULL = 0, SWITCHYARD_CG_TRIANGLE = 1
  integer(c_int), parameter, public :: SWITCHYARD_CG_DOUBLE = 0, SWITCHYARD_CG_FLOAT = 1
  ! Backends and kernels
  integer(c_int), parameter, public :: SWITCHYARD_CG_AUTO = 0, SWITCHYARD_CG_CPU = 1, &
                                       SWITCHYARD_CG_GPU = 2
  integer(c_int), parameter, public :: SWITCHYARD_CG_KERNEL_AUTO = 0, &
                                       SWITCHYARD_CG_KERNEL_DIA = 1, SWITCHYARD_CG_KERNEL_CSR = 2
  ! Statuses
  integer(c_int), parameter, public :: SWITCHYARD_CG_CONVERGED = 0, &
                                       SWITCHYARD_CG_MAX_ITERATIONS = 1, &
                                       SWITCHYARD_CG_NOT_SPD = 2, &
                                       SWITCHYARD_CG_PRECONDITIONER_NOT_SPD = 3, &
                                       SWITCHYARD_CG_NAN = 4, &
                                       SWITCHYARD_CG_ERR_N = -1, &
                                       SWITCHYARD_CG_ERR_INDEX = -2, &
                                       SWITCHYARD_CG_ERR_UNSORTED = -3, &
                                       SWITCHYARD_CG_ERR_DUPLICATE = -4, &
                                       SWITCHYARD_CG_ERR_NOT_SYMMETRIC = -5, &
                                       SWITCHYARD_CG_ERR_ARGUMENT = -6, &
                                       SWITCHYARD_CG_ERR_NO_MEMORY = -7

  type, bind(c), public :: switchyard_cg_matrix
    integer(c_int) :: format = SWITCHYARD_CG_CSR
    integer(c_int) :: symmetry = SWITCHYARD_CG_FULL
    integer(c_int) :: value_type = SWITCHYARD_CG_DOUBLE
    integer(c_int) :: n = 0
    integer(c_int) :: index_base = 1
    type(c_ptr) :: row_ptr = c_null_ptr
    type(c_ptr) :: col_idx = c_null_ptr
    integer(c_int) :: nelt = 0
    type(c_ptr) :: ia = c_null_ptr
    type(c_ptr) :: ja = c_null_ptr
    integer(c_int) :: ndiag = 0
    type(c_ptr) :: offsets = c_null_ptr
    type(c_ptr) :: values = c_null_ptr
  end type

  type, bind(c), public :: switchyard_cg_options
    real(c_double) :: tolerance
    integer(c_int) :: max_iterations, jacobi, use_initial_guess, backend, kernel
  end type

  type, bind(c), public :: switchyard_cg_result
    integer(c_int) :: status, iterations
    real(c_double) :: relative_residual
    integer(c_int) :: backend, kernel
    integer(c_long_long) :: bad_entry
  end type

  public :: switchyard_cg_options_default, switchyard_cg_solve, switchyard_cg_status

  interface
    subroutine switchyard_cg_options_default(options) bind(c, name='switchyard_cg_options_default')
      import :: switchyard_cg_options
      type(switchyard_cg_options), intent(out) :: options
    end subroutine

    integer(c_int) function switchyard_cg_solve(a, b, x, options, result) &
        bind(c, name='switchyard_cg_solve')
      import :: c_int, c_double, switchyard_cg_matrix, switchyard_cg_options, switchyard_cg_result
      type(switchyard_cg_matrix), intent(in) :: a
      real(c_double), intent(in) :: b(*)
      real(c_double), intent(inout) :: x(*)
      type(switchyard_cg_options), intent(in) :: options
      type(switchyard_cg_result), intent(out) :: result
    end function

    type(c_ptr) function status_string(status) bind(c, name='switchyard_cg_status_string')
      import :: c_int, c_ptr
      integer(c_int), value :: status
    end function
  end interface

contains

  ! The description of a status as a Fortran string.
  function switchyard_cg_status(status) result(text)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: text
    character(kind=c_char), pointer :: chars(:)
    integer :: length
    type(c_ptr) :: p
    p = status_string(status)
    if (.not. c_associated(p)) then
      text = ''
      return
    end if
    call c_f_pointer(p, chars, [200])
    length = 0
    do while (length < 200)
      if (chars(length + 1) == c_null_char) exit
      length = length + 1
    end do
    allocate(character(len=length) :: text)
    text = transfer(chars(1:length), text)
  end function

end module switchyard_cg
