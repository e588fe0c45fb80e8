# Sanitizer builds (tools/sanitize.sh): -DSWITCHYARD_SANITIZE=address,undefined
# or =thread instruments every C, C++ and Fortran object and program. Any
# undefined behaviour fails the program instead of printing and going on.
set(SWITCHYARD_SANITIZE "" CACHE STRING
  "Sanitizers to build with, as -fsanitize= takes them (address,undefined or thread)")

# A program that is not instrumented (the reference test programs the suites
# preload the library into) needs the sanitizer's runtime loaded before the
# library: SWITCHYARD_PRELOAD (SWITCHYARD_PRELOAD64 for libswitchyard64.so) is what the
# suites put in LD_PRELOAD.
set(SWITCHYARD_PRELOAD $<TARGET_FILE:switchyard>)
set(SWITCHYARD_PRELOAD64 $<TARGET_FILE:switchyard64>)
if(SWITCHYARD_SANITIZE)
  add_compile_options(-fsanitize=${SWITCHYARD_SANITIZE} -fno-omit-frame-pointer
    -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${SWITCHYARD_SANITIZE})
  # target_clones picks its code through IFUNC resolvers, which the dynamic loader runs while it
  # relocates, before a sanitizer's runtime is ready (ThreadSanitizer crashes there): sanitizer
  # builds compile the CPU TSQR's kernels for the baseline only.
  add_compile_definitions(SWITCHYARD_NO_TARGET_CLONES)
  if(SWITCHYARD_SANITIZE MATCHES "address")
    set(runtime libasan.so)
  elseif(SWITCHYARD_SANITIZE MATCHES "thread")
    set(runtime libtsan.so)
  endif()
  if(runtime)
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${runtime}
      OUTPUT_VARIABLE runtime_path OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(SWITCHYARD_PRELOAD "${runtime_path}:$<TARGET_FILE:switchyard>")
    set(SWITCHYARD_PRELOAD64 "${runtime_path}:$<TARGET_FILE:switchyard64>")
  endif()
endif()
