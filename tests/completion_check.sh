#!/bin/bash
# completion_check.sh PREFIX -- source the installed bash completion as
# bash-completion would and print what it completes, one answer a line:
# a command, a shipped scenario's name (asked of the installed binary), an
# option of `run` (from its --help), a policy name.  Run by
# install_scenarios.cmake, which compares the output.
set -u  # not -e: compgen exits 1 when nothing matches, as it may
prefix=$1
# shellcheck disable=SC1091
source "$prefix/share/bash-completion/completions/stormbench"
c() {
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _stormbench
    echo "${COMPREPLY[*]}"
}
sb=$prefix/bin/stormbench
c "$sb" ru
c "$sb" run retry-s
c "$sb" run --jun
c "$sb" run x --policy token_b
c "$sb" run x --policy exponential+circ
