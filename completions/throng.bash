# SPDX-License-Identifier: MIT
# bash completion for throng: commands, each command's options, reporter
# names after --out, and the files a command reads (plans for run and
# validate, run files for report and merge, recordings for import har).
# What throng takes comes from the executable itself (`throng
# __complete`), so this file never lists a command, an option or a
# plugin.  Needs no bash-completion helpers.

# Candidates of `throng __complete ...`, the words before their tabs.
_throng_ask()
{
    "$_throng_exe" __complete "$@" 2>/dev/null | cut -f1
}

# Files under the word being completed ($2) that end in one of $1 (a|b),
# every file when $1 is empty, and directories to descend into.
_throng_files()
{
    local cur=$2 f
    local -a found=()
    while IFS= read -r f; do
        if [[ -d $f ]]; then
            found+=("$f")
        elif [[ -z $1 || $f =~ \.($1)$ ]]; then
            found+=("$f")
        fi
    done < <(compgen -f -- "$cur")
    COMPREPLY+=("${found[@]}")
    # Readline marks directories with a '/' and quotes what needs it.
    compopt -o filenames 2>/dev/null
}

_throng()
{
    local _throng_exe=$1
    local line=${COMP_LINE:0:COMP_POINT}
    local -a words
    # The words as typed, split at blanks only: bash's own COMP_WORDS splits
    # "csv=out.csv" at its '='.
    read -ra words <<<"$line"
    [[ $line == *[[:blank:]] ]] && words+=("")
    local cword=$((${#words[@]} - 1))
    local cur=${words[cword]} prev=${words[cword - 1]}
    COMPREPLY=()

    if ((cword == 1)); then
        COMPREPLY=($(compgen -W "$(_throng_ask commands)" -- "$cur"))
        return 0
    fi
    local command=${words[1]}
    if [[ $command == import ]]; then
        if ((cword == 2)); then
            COMPREPLY=($(compgen -W "har" -- "$cur"))
            return 0
        fi
        command="import har"
    fi

    # The value of an option that takes one.
    case $prev in
    -o | --out)
        if [[ $command == run || $command == report || $command == merge ]]; then
            if [[ $cur == *=* ]]; then
                # bash replaces only what follows the last '=' of the word.
                local name=${cur%%=*} file=${cur#*=}
                [[ $name == prometheus || $name == influxdb || $name == remote_write ]] && return 0
                _throng_files "" "$file"
            else
                COMPREPLY=($(compgen -S = -W "$(_throng_ask reporters)" -- "$cur"))
                compopt -o nospace 2>/dev/null
            fi
        else
            _throng_files "yaml|yml" "$cur"
        fi
        return 0
        ;;
    -s | --set | -e | --env | -w | --workers | --shard | --start-at | --include-host | --exclude)
        return 0
        ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_throng_ask options "$command")" -- "$cur"))
        return 0
    fi
    case $command in
    run | validate) _throng_files "yaml|yml" "$cur" ;;
    report | merge) _throng_files "json|jsonl" "$cur" ;;
    "import har") _throng_files "har" "$cur" ;;
    esac
    return 0
}

complete -F _throng throng
