# script-case.sh - build/guest/check of a script case: tests/runtime/NAME.stp run in the guest,
# its stdout, stderr and exit status compared exactly.  Sourced by the case files tests/run generates.
# shellcheck shell=bash
#
# A script case is NAME.stp with NAME.out (expected stdout, required) and NAME.err (expected
# stderr; absent = must be empty) beside it. The module is built with `stap -p4` on the host and
# run with `staprun` in the guest; afterwards it must be unloaded. Directives, lines anywhere in
# the script:
#   #! stap: ARGS      extra stap options (shell words), e.g. -DMAXACTION=50 --suppress-handler-errors
#   #! staprun: ARGS   staprun arguments after the module, e.g. x=5 (global assignments, -G at run)
#   #! staprun-options: ARGS   staprun options before the module, e.g. -r 1:ssh://h (as stap --remote)
#   #! rc: N           expected exit status of staprun (default 0)
#   #! workload: CMD   shell command run in the guest once the script printed its first line
#                      (a begin probe printing "ready"); the script must end the run itself
#   #! sed: EXPR       sed expression applied to stdout and stderr before comparing
# SCRIPT is set by the generated case file.

timeout_s=$(sed -n 's/^#! timeout: //p' "$SCRIPT" | head -n 1)

script_directive() { sed -n "s/^#! $1: //p" "$SCRIPT" | head -n 1; }
script_module() { local n; n=$(basename "$SCRIPT" .stp); echo "rt_${n//[^A-Za-z0-9_]/_}"; }

build() {
    local -a opts
    eval "opts=($(script_directive stap))"
    # built from a copy in the case directory: locations read "NAME.stp:L:C"
    cp "$SCRIPT" .
    $STAP -p4 -m "$(script_module)" "${opts[@]}" "$(basename "$SCRIPT")" >/dev/null
}

guest() {
    local mod rc=0 pid workload i
    local -a args opts
    mod=$(script_module)
    eval "args=($(script_directive staprun))"
    eval "opts=($(script_directive staprun-options))"
    workload=$(script_directive workload)
    if [[ -n $workload ]]; then
        staprun "${opts[@]}" "$mod.ko" "${args[@]}" >stdout 2>stderr &
        pid=$!
        for ((i = 0; i < 600; i++)); do
            [[ -s stdout ]] && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        bash -c "$workload" >/dev/null 2>&1 || true
        wait "$pid" || rc=$?
    else
        staprun "${opts[@]}" "$mod.ko" "${args[@]}" >stdout 2>stderr || rc=$?
    fi
    echo "$rc" >status
    if grep -q "^$mod " /proc/modules; then
        echo "module $mod still loaded after the run" >&2
        return 1
    fi
}

check() {
    local base=${SCRIPT%.stp} want rc sed_expr
    want=$(script_directive rc)
    sed_expr=$(script_directive sed)
    rc=$(cat status)
    if [[ -n $sed_expr ]]; then
        sed -i -e "$sed_expr" stdout stderr
    fi
    local ok=0
    diff -u --label expected --label stdout "$base.out" stdout || ok=1
    if [[ -e $base.err ]]; then
        diff -u --label expected --label stderr "$base.err" stderr || ok=1
    elif [[ -s stderr ]]; then
        echo "unexpected stderr:"; cat stderr; ok=1
    fi
    if [[ $rc != "${want:-0}" ]]; then
        echo "staprun exit status $rc, expected ${want:-0}"; ok=1
    fi
    return $ok
}
