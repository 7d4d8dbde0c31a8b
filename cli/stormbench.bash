# bash completion for stormbench                      -*- shell-script -*-
#
# Installed as PREFIX/share/bash-completion/completions/stormbench, where
# bash-completion loads it the first time `stormbench <Tab>` is typed (or
# source it from ~/.bashrc).  It asks the program itself for what it
# knows, so it never goes stale: the options from `stormbench CMD --help`,
# the shipped scenarios from `stormbench scenarios --names`, the policies
# from `stormbench policies`.

_stormbench_words()
{
    # Every long option a command's --help names.
    "$1" "$2" --help 2>/dev/null | grep -o -e '--[a-z][a-z-]*' | sort -u
}

_stormbench_policies()
{
    # The policy names `stormbench policies` lists (a layer's line says
    # more after its name), completing the last of a stack "a+b+c".
    local head="" last=$2
    if [[ $last == *+* ]]; then
        head=${last%+*}+
        last=${last##*+}
    fi
    local name
    for name in $("$1" policies 2>/dev/null | awk '/^[a-z0-9_]/ {print $1}')
    do
        [[ $name == "$last"* ]] && echo "$head$name"
    done
}

_stormbench()
{
    local cur prev cmd prog
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    prog=${COMP_WORDS[0]}
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "run validate policies decide gui compare
            merge import lint scenarios --help --version" -- "$cur"))
        return 0
    fi
    cmd=${COMP_WORDS[1]}
    case $prev in
        --policy-plugin)
            compopt -o filenames 2>/dev/null || :
            COMPREPLY=($(compgen -f -X '!*.so' -- "$cur")
                       $(compgen -d -- "$cur"))
            return 0 ;;
        --policy | --vs | --policies)
            COMPREPLY=($(_stormbench_policies "$prog" "$cur"))
            return 0 ;;
        --format)
            COMPREPLY=($(compgen -W "grpc envoy istio resilience4j aws
                topology" -- "$cur"))
            return 0 ;;
        --json | --csv | --trace | --junit | --sarif | --emit-jobs | \
        --script | --policy-from | --frames | -o | --out)
            compopt -o filenames 2>/dev/null || :
            COMPREPLY=($(compgen -f -- "$cur"))
            return 0 ;;
        --set | --param | --seed | --seeds | --sweep | --run | -j | --jobs | \
        --hook-timeout | --trace-sample | --speed | --size | --fps | --until | \
        --route | --method | --instance | --profile | --max-amplification)
            return 0 ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_stormbench_words "$prog" "$cmd")" \
                     -- "$cur"))
        return 0
    fi
    compopt -o filenames 2>/dev/null || :
    case $cmd in
        run | validate | compare | gui)
            COMPREPLY=($(compgen -W "$("$prog" scenarios --names \
                2>/dev/null)" -- "$cur")
                       $(compgen -f -X '!*.ini' -- "$cur")
                       $(compgen -d -- "$cur")) ;;
        merge)
            COMPREPLY=($(compgen -d -- "$cur")) ;;
        policies)
            COMPREPLY=($(_stormbench_policies "$prog" "$cur")) ;;
        *)
            COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
    return 0
}
complete -F _stormbench stormbench
