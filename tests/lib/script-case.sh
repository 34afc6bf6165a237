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
# SCRIPT is set by the generated case file; RT_GROUP and RT_SEL too when the script shares a module with
# others (tests/lib/script-groups.sh says which may, and how each run still executes its script alone);
# RT_RUNTIME=bpf for a script with kernel probes run as BPF (stap --runtime=bpf, staprun NAME.bo): then
# tests/runtime/bpf.list's line for it holds as in unit/bpf-runtime (refused: WHY at translation or by
# staprun, fail: WHY a known defect, which must still fail; none: it passes).

# script_directive NAME VAR: VAR = the text of the first "#! NAME: " line (empty without one).
# Bash alone: the guest runs this for every script case, and under TCG each program costs 0.1 s.
script_directive() {
    local line
    printf -v "$2" '%s' ''
    while IFS= read -r line || [[ -n $line ]]; do
        if [[ $line == "#! $1: "* ]]; then
            printf -v "$2" '%s' "${line#"#! $1: "}"
            return 0
        fi
    done <"$SCRIPT"
}
# script_module VAR: VAR = the module's name, rt_NAME (NAME's characters outside [A-Za-z0-9_] as _)
script_module() { local n=${SCRIPT##*/}; n=${n%.stp}; printf -v "$1" 'rt_%s' "${n//[^A-Za-z0-9_]/_}"; }

script_directive timeout timeout_s

# bpf_listed VAR: VAR = the script's line in tests/runtime/bpf.list (empty: none)
bpf_listed() {
    local n=${SCRIPT##*/} name want
    printf -v "$1" '%s' ''
    while IFS=$'\t' read -r name want; do
        if [[ $name == "${n%.stp}" ]]; then
            printf -v "$1" '%s' "$want"
        fi
    done <"${SCRIPT%/*}/bpf.list"
    return 0
}

build() {
    local -a opts
    local d mod
    # a member of a group (RT_GROUP, tests/lib/script-groups.sh): the group's module, built by the first of
    # its cases to get here (the others wait for it, then stap's module cache serves them); the script alone
    # when the group does not build
    if [[ -n ${RT_GROUP:-} ]]; then
        mod=${RT_GROUP##*/} mod=${mod%.stp}
        if flock "$RT_GROUP.lock" $STAP -p4 -m "$mod" "$RT_GROUP" >/dev/null 2>group.err; then
            echo "$mod rt_sel=$RT_SEL" >group
            return 0
        fi
        cat group.err
        echo "the group's module $mod did not build: building ${SCRIPT##*/} alone"
    fi
    script_module mod
    script_directive stap d
    eval "opts=($d)"
    # built from a copy in the case directory: locations read "NAME.stp:L:C"
    cp "$SCRIPT" .
    if [[ ${RT_RUNTIME:-} == bpf ]]; then
        local listed why
        bpf_listed listed
        $STAP --runtime=bpf -p4 -m "$mod" "${opts[@]}" "$(basename "$SCRIPT")" >/dev/null 2>p4.err && return 0
        why=$(sed -n 's/.*error: \(.*\) is not available on the BPF runtime yet.*/\1/p' p4.err | head -n 1)
        [[ -n $why ]] || { cat p4.err; return 1; }
        [[ "refused: $why" == "$listed" ]] || { echo "refused: $why (bpf.list: ${listed:-none})"; return 1; }
        echo "$why" >refused
        return 0
    fi
    $STAP -p4 -m "$mod" "${opts[@]}" "$(basename "$SCRIPT")" >/dev/null
}

guest() {
    local mod rc=0 pid workload i d line file
    local -a args opts
    [[ ! -e refused ]] || return 0
    script_module mod
    script_directive staprun d
    eval "args=($d)"
    # a group's module (build): member RT_SEL of it
    [[ ! -e group ]] || read -r mod args <group
    file=$mod.ko
    [[ ${RT_RUNTIME:-} != bpf ]] || file=$mod.bo
    script_directive staprun-options d
    eval "opts=($d)"
    script_directive workload workload
    if [[ -n $workload ]]; then
        staprun "${opts[@]}" "$file" "${args[@]}" >stdout 2>stderr &
        pid=$!
        for ((i = 0; i < 600; i++)); do
            [[ -s stdout ]] && break
            kill -0 "$pid" 2>/dev/null || break
            nap 0.1
        done
        bash -c "$workload" >/dev/null 2>&1 || true
        wait "$pid" || rc=$?
    else
        staprun "${opts[@]}" "$file" "${args[@]}" >stdout 2>stderr || rc=$?
    fi
    echo "$rc" >status
    while read -r line; do
        if [[ $line == "$mod "* ]]; then
            echo "module $mod still loaded after the run" >&2
            return 1
        fi
    done </proc/modules
}

check() {
    local base=${SCRIPT%.stp} want rc sed_expr listed line
    [[ ! -e refused ]] || return 0      # refused as bpf.list says (build)
    if [[ ${RT_RUNTIME:-} == bpf ]]; then
        bpf_listed listed
        line=$(sed -n 's/^staprun: cannot run .*: \(.* for modules only\)$/\1/p' stderr | head -n 1)
        if [[ -n $line ]]; then
            [[ "refused: $line" == "$listed" ]] || { echo "refused by staprun: $line (bpf.list: ${listed:-none})"; return 1; }
            return 0
        fi
        if [[ $listed == fail:* ]]; then
            # a known defect: it must still fail, or come off the list
            ! RT_RUNTIME= check >/dev/null || { echo "passes now: take it off tests/runtime/bpf.list ($listed)"; return 1; }
            return 0
        fi
        [[ -z $listed ]] || { echo "bpf.list says \"$listed\", but it ran"; return 1; }
    fi
    script_directive rc want
    script_directive sed sed_expr
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
