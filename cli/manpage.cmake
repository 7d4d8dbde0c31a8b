# manpage.cmake -- stormbench.1, the manual page, made at build time from
# the built binary's own --help texts, so the page and the program never
# disagree.  Run by the build (CMakeLists.txt) as
#     cmake -DSTORMBENCH=path/to/stormbench -DOUT=stormbench.1
#           -DVERSION=x.y.z -P manpage.cmake
# Every help text goes in as literal text (.nf ... .fi): backslashes as
# \e, every '-' as \- (groff would print a hyphen, which does not paste
# back into a shell as an option), and a line that starts with '.' or '''
# protected by \& so roff does not read it as a request.
foreach(v STORMBENCH OUT VERSION)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "manpage.cmake: -D${v}=... is required")
  endif()
endforeach()

function(help_of out)
  execute_process(COMMAND ${STORMBENCH} ${ARGN} --help
                  RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "stormbench ${ARGN} --help: exit ${rc}: ${err}")
  endif()
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

help_of(top)
set(page ".\\\" Made by cli/manpage.cmake from stormbench's --help texts.
.TH STORMBENCH 1 \"\" \"stormbench ${VERSION}\" \"User Commands\"
.SH NAME
stormbench \\- fault\\-injection simulator and retry\\-policy test bench
.SH SYNOPSIS
.B stormbench
.I COMMAND
.RI [ ARGS ]
.br
.B stormbench
.I COMMAND
.B \\-\\-help
.SH DESCRIPTION
Simulated clients, each running a retry policy, against a modeled
server that gets overloaded and faulted: retry storms, metastable
failures, and what a retry policy costs and buys.
Headless runs for CI
.RB ( run ,
with JSON, CSV and JUnit XML outputs and an exit status from the
scenario's
.B [expect]
section), comparison reports
.RB ( compare ),
a live window
.RB ( gui ),
and your own retry configurations brought in
.RB ( import ,
.BR lint ,
.BR \\-\\-policy\\-from ).
.PP
.nf
${top}.fi
.SH COMMANDS
")
foreach(cmd run validate policies decide gui compare merge import lint
            scenarios)
  help_of(text ${cmd})
  string(APPEND page ".SS ${cmd}\n.nf\n${text}.fi\n")
endforeach()
string(APPEND page ".SH FILES
A scenario named without a path
.RI ( \"stormbench run retry\\-storm\" )
is looked up in
.I ./scenarios,
then beside the binary:
.I PREFIX/share/stormbench/scenarios
for
.I PREFIX/bin/stormbench,
whatever the install prefix; then in the build tree; then where
stormbench was configured to install.
.B stormbench scenarios
lists them.
.PP
.I PREFIX/include/stormbench/policy.h
is the policy plug\\-in ABI;
.I PREFIX/share/doc/stormbench/examples/
holds a complete plug\\-in, its build snippet and the contract of a
pipeline step's policy.
.SH EXIT STATUS
0 success; 1 an
.B [expect]
assertion failed; 2 bad input, usage, or a run that could not finish;
3 a policy plug\\-in crashed or hung in one of its hooks; 130
.B compare
stopped by Ctrl\\-C.
.SH SEE ALSO
The README shipped with stormbench, and
.I PREFIX/share/doc/stormbench/
.")
file(WRITE ${OUT}.tmp "${page}")
file(RENAME ${OUT}.tmp ${OUT})
