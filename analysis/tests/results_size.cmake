# Fails when the files under DIR add up to more than MAX_BYTES. Run as
#   cmake -DDIR=<bench/results> -DMAX_BYTES=<n> -P results_size.cmake
file(GLOB_RECURSE files LIST_DIRECTORIES false "${DIR}/*")
set(total 0)
foreach(f IN LISTS files)
  file(SIZE "${f}" s)
  math(EXPR total "${total} + ${s}")
endforeach()
list(LENGTH files n)
if(total GREATER MAX_BYTES)
  message(FATAL_ERROR "${DIR} holds ${total} bytes in ${n} files, more than the ${MAX_BYTES} allowed: keep the "
                      "accepted runs only and move the rest into archive/ (bench/results/README.md)")
endif()
message(STATUS "${DIR}: ${total} bytes in ${n} files (at most ${MAX_BYTES})")
