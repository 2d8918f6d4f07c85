! A 2-D heat equation by Jacobi sweeps, written the way Fortran OpenMP codes
! (NPB's among them) are: one parallel region around the time loop, a
! SINGLE, a DO with a MAX reduction, a copy DO with NOWAIT, and an explicit
! BARRIER. Thread 0 works LATE_US more before that barrier, so each step
! has a known late thread. Every thread times its own arrival at and
! departure from the explicit barrier on CLOCK_MONOTONIC (the ground truth
! of the e2e tests, like examples/workload.h's windows for the C examples).
!
! Usage: omp_heat [STEPS [SIZE [LATE_US]]]   (defaults 50 400 1000)
! Prints "barrier_line L" (the explicit barrier's source line), per step
! and thread "phase K thread I tid T arrive_ns A depart_ns D", then
! "steps N size S threads P" and "total_ns N".
module wl_clock
  use iso_c_binding
  implicit none
  type, bind(C) :: timespec
    integer(c_long) :: tv_sec, tv_nsec
  end type timespec
  interface
    integer(c_int) function clock_gettime(clk, ts) bind(C, name='clock_gettime')
      import :: c_int, timespec
      integer(c_int), value :: clk
      type(timespec) :: ts
    end function clock_gettime
    integer(c_int) function gettid() bind(C, name='gettid')
      import :: c_int
    end function gettid
  end interface
contains
  integer(c_int64_t) function now_ns()
    type(timespec) :: ts
    integer(c_int) :: rc
    rc = clock_gettime(1_c_int, ts) ! CLOCK_MONOTONIC
    now_ns = int(ts%tv_sec, c_int64_t) * 1000000000_c_int64_t + int(ts%tv_nsec, c_int64_t)
  end function now_ns

  ! The count in argument k, or def when absent; stops on anything but an
  ! integer in [lo, hi].
  integer function arg_or(k, def, lo, hi)
    integer, intent(in) :: k, def, lo, hi
    character(len=32) :: s
    integer :: ios
    arg_or = def
    if (command_argument_count() < k) return
    call get_command_argument(k, s)
    read(s, *, iostat=ios) arg_or
    if (ios /= 0 .or. arg_or < lo .or. arg_or > hi .or. verify(trim(s), '0123456789') /= 0) then
      write(0, '(a,i0,a,i0,a,i0,a)') 'omp_heat: argument ', k, ' must be an integer in [', &
        lo, ', ', hi, ']'
      write(0, '(a)') 'usage: omp_heat [STEPS [SIZE [LATE_US]]]'
      call exit(2)
    end if
  end function arg_or
end module wl_clock

program omp_heat
  use omp_lib
  use wl_clock
  implicit none
  integer :: steps, n, late_us, nthr, i, j, it, me, bar_line
  real(8), allocatable :: u(:,:), v(:,:)
  real(8) :: diff
  integer(c_int64_t), allocatable :: t_in(:,:), t_out(:,:)
  integer, allocatable :: tids(:)
  integer(c_int64_t) :: t0, spin_until

  steps = arg_or(1, 50, 1, 100000)
  n = arg_or(2, 400, 8, 4000)
  late_us = arg_or(3, 1000, 0, 1000000)
  nthr = omp_get_max_threads()
  allocate(u(n,n), v(n,n), t_in(nthr, steps), t_out(nthr, steps), tids(nthr))
  u = 0d0
  v = 0d0
  u(:,1) = 1d0
  v(:,1) = 1d0
  t0 = now_ns()
!$omp parallel private(i, j, it, me, spin_until)
  me = omp_get_thread_num() + 1
  tids(me) = gettid()
  do it = 1, steps
!$omp single
    diff = 0d0
!$omp end single
!$omp do reduction(max:diff)
    do j = 2, n - 1
      do i = 2, n - 1
        v(i,j) = 0.25d0 * (u(i-1,j) + u(i+1,j) + u(i,j-1) + u(i,j+1))
        diff = max(diff, abs(v(i,j) - u(i,j)))
      end do
    end do
!$omp end do
!$omp do
    do j = 2, n - 1
      u(2:n-1,j) = v(2:n-1,j)
    end do
!$omp end do nowait
    if (me == 1) then
      spin_until = now_ns() + int(late_us, c_int64_t) * 1000_c_int64_t
      do while (now_ns() < spin_until)
      end do
    end if
    t_in(me, it) = now_ns()
    if (me == 1) bar_line = __LINE__ + 1
!$omp barrier
    t_out(me, it) = now_ns()
  end do
!$omp end parallel
  print '(a,i0)', 'barrier_line ', bar_line
  do it = 1, steps
    do me = 1, nthr
      print '(a,i0,a,i0,a,i0,a,i0,a,i0)', 'phase ', it - 1, ' thread ', me - 1, ' tid ', &
        tids(me), ' arrive_ns ', t_in(me, it), ' depart_ns ', t_out(me, it)
    end do
  end do
  print '(a,i0,a,i0,a,i0,a,es12.5)', 'steps ', steps, ' size ', n, ' threads ', nthr, &
    ' diff ', diff
  print '(a,i0)', 'total_ns ', now_ns() - t0
end program omp_heat
