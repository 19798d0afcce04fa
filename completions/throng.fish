# SPDX-License-Identifier: MIT
# fish completion for throng: commands, each command's options, reporter
# names after --out, and the files a command reads.  What throng takes
# comes from the executable itself (`throng __complete`, "word<TAB>
# description" lines as fish reads them), so this file never lists a
# command, an option or a plugin.

function __throng_words
    commandline -opc
end

function __throng_needs_command
    test (count (__throng_words)) -eq 1
end

function __throng_command
    set -l words (__throng_words)
    if test "$words[2]" = import
        echo "import har"
    else
        echo $words[2]
    end
end

function __throng_after_out
    set -l words (__throng_words)
    contains -- $words[-1] -o --out
end

function __throng_commands
    set -l words (__throng_words)
    command $words[1] __complete commands 2>/dev/null
end

# Whether the word being completed is a file that the command, one of $argv, reads.
function __throng_wants_files
    set -l words (__throng_words)
    test (count $words) -ge 2; or return 1
    __throng_after_out; and return 1
    string match -q -- '-*' (commandline -ct); and return 1
    set -l command (__throng_command)
    test "$command" = "import har"; and test (count $words) -lt 3; and return 1
    contains -- $command $argv
end

# Directories, and files ending in .SUFFIX for a SUFFIX of $argv.
function __throng_files
    set -l pattern '\\.('(string join '|' $argv)')$'
    for f in (__fish_complete_path (commandline -ct) | string replace -r '\t.*' '')
        if test -d $f; or string match -qr -- $pattern $f
            echo $f
        end
    end
end

function __throng_options
    set -l words (__throng_words)
    command $words[1] __complete options (__throng_command) 2>/dev/null
end

function __throng_out_values
    set -l words (__throng_words)
    set -l token (commandline -ct)
    if string match -q '*=*' -- $token
        set -l name (string split -m1 = -- $token)[1]
        contains -- $name prometheus influxdb remote_write; and return
        set -l file (string split -m1 = -- $token)[2]
        for f in (__fish_complete_path $file | string replace -r '\t.*' '')
            echo $name=$f
        end
    else
        command $words[1] __complete reporters 2>/dev/null | string replace -r '\t' '=\t'
    end
end

complete -c throng -f
complete -c throng -n __throng_needs_command -a '(__throng_commands)'
complete -c throng -n 'not __throng_needs_command; and test (__throng_words)[2] = import; and test (count (__throng_words)) -eq 2' -a har
complete -c throng -n 'not __throng_needs_command; and not __throng_after_out; and string match -q -- "-*" (commandline -ct)' -a '(__throng_options)'
complete -c throng -n '__throng_after_out; and test (__throng_command) != "import har"' -a '(__throng_out_values)'
complete -c throng -n '__throng_wants_files run validate' -a '(__throng_files yaml yml)'
complete -c throng -n '__throng_wants_files report merge' -a '(__throng_files json jsonl)'
complete -c throng -n '__throng_wants_files "import har"' -a '(__throng_files har)'
