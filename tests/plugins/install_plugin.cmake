# install_plugin.cmake -- what a user does with an installed stormbench:
# build a policy plug-in out of tree and load it.  Run by CTest as
#     cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DCC=...
#           -DPKG_CONFIG=... -P install_plugin.cmake
# It needs no shell: every step is an execute_process whose status and
# output are checked.
#   1. cmake --install BUILD_DIR --prefix WORK_DIR/prefix
#   2. the README's one-line build: cc $(pkg-config --cflags stormbench)
#      -shared -fPIC capped_backoff.c -o libcapped_backoff.so, with
#      pkg-config seeing only the new prefix
#   3. the CMake snippet, as installed in PREFIX/share/doc/stormbench/
#      examples/out-of-tree/ (with the example itself), copied next to
#      the source as a user would, configured against the prefix
#   4. the installed stormbench lists both plug-ins.
foreach(v BUILD_DIR SOURCE_DIR WORK_DIR CC PKG_CONFIG)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install_plugin.cmake: -D${v}=... is required")
  endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
# The example as installed: what a user of an installed stormbench has.
set(example ${prefix}/share/doc/stormbench/examples)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# Run a command; stop with its output when it fails.  Its stdout is left
# in `out`.
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE o
                  ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${o}\n${e}")
  endif()
  set(out "${o}" PARENT_SCOPE)
endfunction()

step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR}
     --prefix ${prefix})
foreach(f include/stormbench/policy.h share/pkgconfig/stormbench.pc
          bin/stormbench)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "cmake --install did not install ${f}")
  endif()
endforeach()

# PKG_CONFIG_LIBDIR replaces the default search path: only this prefix,
# so a stormbench installed elsewhere on the machine cannot satisfy it.
step("pkg-config --cflags stormbench" ${CMAKE_COMMAND} -E env
     PKG_CONFIG_LIBDIR=${prefix}/share/pkgconfig PKG_CONFIG_PATH=
     ${PKG_CONFIG} --cflags stormbench)
string(STRIP "${out}" cflags)
if(NOT cflags MATCHES "^-I")
  message(FATAL_ERROR "pkg-config --cflags stormbench gave '${cflags}'")
endif()
separate_arguments(cflags UNIX_COMMAND "${cflags}")
set(by_hand ${WORK_DIR}/by-hand/libcapped_backoff.so)
file(MAKE_DIRECTORY ${WORK_DIR}/by-hand)
step("cc with pkg-config" ${CC} ${cflags} -shared -fPIC
     ${example}/capped_backoff.c -o ${by_hand})

# The snippet, copied next to the source.
set(src ${WORK_DIR}/snippet)
file(COPY ${example}/out-of-tree/CMakeLists.txt ${example}/capped_backoff.c
     DESTINATION ${src})
step("configure the out-of-tree snippet" ${CMAKE_COMMAND} -E env
     PKG_CONFIG_LIBDIR=${prefix}/share/pkgconfig PKG_CONFIG_PATH=
     ${CMAKE_COMMAND} -S ${src} -B ${src}/build -DCMAKE_C_COMPILER=${CC}
     -DPKG_CONFIG_EXECUTABLE=${PKG_CONFIG})
step("build the out-of-tree snippet" ${CMAKE_COMMAND} --build ${src}/build)
set(by_cmake ${src}/build/libcapped_backoff.so)

foreach(lib ${by_hand} ${by_cmake})
  step("stormbench policies --policy-plugin ${lib}" ${prefix}/bin/stormbench
       policies --policy-plugin ${lib} capped_backoff)
  if(NOT out MATCHES "capped_backoff  from ${lib}")
    message(FATAL_ERROR "stormbench did not list the plug-in:\n${out}")
  endif()
endforeach()
message(STATUS "installed, built out of tree twice, loaded: ok")
