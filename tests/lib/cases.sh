# cases.sh - bash library: loads test case files (*.t), calls their functions, runs them in parallel.
# Used (sourced) by tests/run.
# shellcheck shell=bash
#
# A case file is bash defining some of run(), build(), guest(), check(), and optionally the
# top-level variable timeout_s. Each function is called in a fresh `bash` process with
# `set -eo pipefail`, so any failing command fails the function (write `cmd || true` when a
# failure is expected). A negated check is written `not CMD`: a bare `! CMD` never fails a
# function under set -e (bash ignores the status of a negated command there). `not` and any
# other helpers for case functions are in case-helpers.sh (also sourced in the guest).

: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"

# case_probe FILE: prints "TIMEOUT FUNCS", FUNCS being the defined case functions, comma-separated.
case_probe() {
    bash -c '
        source "$1" >/dev/null || exit 1
        f=
        for fn in run build guest check; do
            declare -F "$fn" >/dev/null && f+=$fn,
        done
        echo "${timeout_s:-0} ${f:-none}"' case-probe "$1"
}

# case_has FUNCS NAME: is function NAME among the comma-separated FUNCS from case_probe?
case_has() { [[ ,$1 == *,$2,* ]]; }

# case_call FILE FUNC TIMEOUT: runs FUNC of FILE in a fresh bash, in the current directory. When
# FUNC fails, the last failing command's file, line and text go to stderr (set -E: the ERR trap
# reaches functions; one in a command substitution stays in its subshell).
case_call() {
    timeout -k 10 "$3" bash -c 'set -eEo pipefail; case_func=$2 case_failed=
        trap '\''case_failed="${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND"'\'' ERR
        trap '\''rc=$?; (( rc == 0 || rc == 77 )) || [[ -z $case_failed ]] ||
            printf "%s\\n" "$case_func() failed at $case_failed" | head -n 1 >&2'\'' EXIT
        source "$3"; source "$1"; "$2"' \
        case-call "$1" "$2" "$TOP/tests/lib/case-helpers.sh" </dev/null
}

# case_description FILE: the case's first-line comment, without the "# ".
case_description() {
    local line=
    IFS= read -r line <"$1" || true
    if [[ $line == '#'* ]]; then
        line=${line#\#}
        echo "${line# }"
    fi
}

indent() { sed 's/^/    /'; }

# show NAME FILE [MAXLINES]: prints FILE under a heading, indented (the last MAXLINES lines).
show() {
    local label=$1 file=$2 max=${3:-200}
    if [[ ! -e $file ]]; then
        echo "  --- $label: (missing)"
    elif [[ ! -s $file ]]; then
        echo "  --- $label: (empty)"
    else
        echo "  --- $label:"
        if (( $(wc -l <"$file") > max )); then
            echo "    [... last $max lines]"
        fi
        tail -n "$max" "$file" | indent
    fi
}

# parallel JOBS FUNC ARG...: runs `FUNC ARG` for each ARG, at most JOBS at once; waits for all of
# them (and only them: tests/run has the guest batch running in the background meanwhile).
parallel() {
    local jobs=$1 fn=$2 arg pid
    local -a pids=() live
    shift 2
    for arg in "$@"; do
        while (( ${#pids[@]} >= jobs )); do
            wait -n "${pids[@]}" || true
            live=()
            for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && live+=("$pid"); done
            pids=("${live[@]}")
        done
        "$fn" "$arg" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || true; done
}
