# The Python the project runs numpy with: the first of Python3_EXECUTABLE (when set on the command
# line), /usr/bin/python3 and `python3` on PATH that imports numpy. The default python3 of a machine
# may be a separate install without numpy (pyenv, a venv), while Debian's python3-numpy serves
# /usr/bin/python3. Sets WS_NUMPY_PYTHON ("" when none has numpy).
find_program(WS_PATH_PYTHON3 python3)
set(WS_NUMPY_PYTHON "")
foreach(py IN ITEMS ${Python3_EXECUTABLE} /usr/bin/python3 ${WS_PATH_PYTHON3})
  if(py AND EXISTS "${py}" AND NOT WS_NUMPY_PYTHON)
    execute_process(COMMAND "${py}" -c "import numpy" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(WS_NUMPY_PYTHON "${py}")
    endif()
  endif()
endforeach()
