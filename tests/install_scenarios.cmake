# install_scenarios.cmake -- `cmake --install` ships the whole scenario
# library, and the installed stormbench runs each one by name.  Run by
# CTest as
#     cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -P install_scenarios.cmake
#   1. cmake --install BUILD_DIR --prefix WORK_DIR/prefix
#   2. every scenarios/*.ini of the source tree is in
#      PREFIX/share/stormbench/scenarios, and nothing else is
#   3. the installed binary, started in / (no ./scenarios there), runs
#      each by name, from the installed files (cli/find.c looks beside
#      the binary), and lists them (stormbench scenarios --names);
#   4. the build tree's binary finds them from / too;
#   5. the manual page (valid roff, a section per command), the bash
#      completion (it completes), the plug-in examples and docs are
#      installed.
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

# Every shipped scenario runs by name from `/`, where there is no
# ./scenarios: the installed binary finds them beside itself
# (PREFIX/bin/../share/stormbench/scenarios), whatever the prefix -- and
# the summary names the file it ran, which must be the installed one, not
# a source tree's nor the configured prefix's.
file(REAL_PATH ${prefix} real_prefix)
foreach(f ${shipped})
  string(REGEX REPLACE "\\.ini$" "" name ${f})
  execute_process(COMMAND ${prefix}/bin/stormbench run ${name} --no-timing
                  WORKING_DIRECTORY /
                  RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "installed stormbench run ${name} from /: exit ${rc}\n${o}${e}")
  endif()
  string(FIND "${o}" "(${real_prefix}/share/stormbench/scenarios/${f})" at)
  if(at LESS 0)
    message(FATAL_ERROR "installed stormbench run ${name} did not run the "
            "installed file ${real_prefix}/share/stormbench/scenarios/${f}:\n${o}")
  endif()
endforeach()
execute_process(COMMAND ${prefix}/bin/stormbench scenarios --names
                WORKING_DIRECTORY /
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
string(REGEX REPLACE "\n$" "" o "${o}")
string(REPLACE "\n" ";" listed "${o}")
string(REGEX REPLACE "\\.ini" "" names "${shipped}")
if(NOT rc EQUAL 0 OR NOT listed STREQUAL names)
  message(FATAL_ERROR "stormbench scenarios --names from /: exit ${rc}\n"
          "listed:  ${listed}\nshipped: ${names}\n${e}")
endif()

# The build tree's binary, from any directory: `cd build &&
# ./stormbench run retry-storm` failed, for want of ./scenarios.
execute_process(COMMAND ${BUILD_DIR}/stormbench validate retry-storm
                WORKING_DIRECTORY /
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "build tree's stormbench validate retry-storm from /: "
          "exit ${rc}\n${o}${e}")
endif()

# The manual page, the completion and what a plug-in author needs.
set(doc ${prefix}/share/doc/stormbench)
foreach(f share/man/man1/stormbench.1
          share/bash-completion/completions/stormbench
          share/doc/stormbench/examples/capped_backoff.c
          share/doc/stormbench/examples/README.md
          share/doc/stormbench/examples/out-of-tree/CMakeLists.txt
          share/doc/stormbench/examples/plugin-steps.md
          share/doc/stormbench/ci-github-actions.md
          include/stormbench/policy.h)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "cmake --install did not install ${f}")
  endif()
endforeach()
# The page is well-formed roff (groff warns of every request it does not
# know, every bad escape) and documents every command.
find_program(GROFF groff)
if(NOT GROFF)
  message(FATAL_ERROR "groff not found: .ci/setup installs groff-base")
endif()
execute_process(COMMAND ${GROFF} -man -Tutf8 -ww -z
                        ${prefix}/share/man/man1/stormbench.1
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0 OR NOT e STREQUAL "")
  message(FATAL_ERROR "groff on stormbench.1: exit ${rc}\n${e}")
endif()
file(READ ${prefix}/share/man/man1/stormbench.1 page)
foreach(cmd run validate policies decide gui compare merge import lint
            scenarios)
  string(FIND "${page}" ".SS ${cmd}\n" at)
  if(at LESS 0)
    message(FATAL_ERROR "stormbench.1 has no section for ${cmd}")
  endif()
endforeach()
# The completion, sourced as bash-completion would, completes a command,
# a shipped scenario's name (asked of the installed binary) and an
# option of that command (from its --help).
execute_process(COMMAND bash ${SOURCE_DIR}/tests/completion_check.sh ${prefix}
                WORKING_DIRECTORY /
                RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
if(NOT rc EQUAL 0 OR NOT o STREQUAL "run\nretry-storm\n--junit\ntoken_bucket\nexponential+circuit_breaker\n")
  message(FATAL_ERROR "bash completion: exit ${rc}, gave:\n${o}\n${e}")
endif()
message(STATUS "${n} scenarios installed and run by name from /, the "
        "manual page, completion and examples: ok")
