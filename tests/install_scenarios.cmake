# install_scenarios.cmake -- `cmake --install` ships the whole scenario
# library, and the installed stormbench runs each one by name.  Run by
# CTest as
#     cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -P install_scenarios.cmake
#   1. cmake --install BUILD_DIR --prefix WORK_DIR/prefix
#   2. every scenarios/*.ini of the source tree is in
#      PREFIX/share/stormbench/scenarios, and nothing else is
#   3. the installed binary, started in PREFIX/share/stormbench (where it
#      finds ./scenarios, as from a source tree), validates each by name
#      and runs one.
# The installed binary's own lookup (the data directory it was configured
# with) points at the configured prefix, not at this one; cli/find.c
# tries ./scenarios first, so step 3 checks the names and the files.
foreach(v BUILD_DIR SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install_scenarios.cmake: -D${v}=... is required")
  endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR}
                --prefix ${prefix}
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE e)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}): ${e}")
endif()

file(GLOB shipped RELATIVE ${SOURCE_DIR}/scenarios ${SOURCE_DIR}/scenarios/*.ini)
file(GLOB installed RELATIVE ${prefix}/share/stormbench/scenarios
     ${prefix}/share/stormbench/scenarios/*)
list(SORT shipped)
list(SORT installed)
if(NOT shipped STREQUAL installed)
  message(FATAL_ERROR "installed scenarios differ from scenarios/*.ini:\n"
          "shipped:   ${shipped}\ninstalled: ${installed}")
endif()
list(LENGTH shipped n)
if(n LESS 13)
  message(FATAL_ERROR "only ${n} scenarios installed: ${installed}")
endif()

foreach(f ${shipped})
  string(REGEX REPLACE "\\.ini$" "" name ${f})
  execute_process(COMMAND ${prefix}/bin/stormbench validate ${name}
                  WORKING_DIRECTORY ${prefix}/share/stormbench
                  RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "installed stormbench validate ${name}: exit ${rc}\n${o}${e}")
  endif()
endforeach()
# And one is run by name, its [expect] holding (a cheap one: 0.03 s).
execute_process(COMMAND ${prefix}/bin/stormbench run thundering-herd -q
                WORKING_DIRECTORY ${prefix}/share/stormbench
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "installed stormbench run thundering-herd: exit ${rc}\n${o}${e}")
endif()
message(STATUS "${n} scenarios installed and validated by name, one run: ok")
