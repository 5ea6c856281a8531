# collbench_warnings(target): -Wall -Wextra for C++ and for CUDA's host code; errors when COLLBENCH_WERROR.
function(collbench_warnings target)
  set(_werror "")
  if(COLLBENCH_WERROR)
    set(_werror -Werror)
  endif()
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra ${_werror}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr>)
endfunction()
