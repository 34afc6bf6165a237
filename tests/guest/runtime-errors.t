# runtime safety: array overflow, division by zero, MAXACTION and MAXNESTING end the run with a located error, exit 1
# Used by tests/run (issue 2): each error becomes "ERROR: ... near ... at <input>:L:C", nothing crashes.

# the modules, each a begin probe that trips one limit, and what its error must say
cases=(
    "t_err_ovf|global a[3]; probe begin { for (i = 0; i < 5; i++) a[i] = i; println(\"not reached\") }|ERROR: Array overflow, check MAXMAPENTRIES near identifier 'a' at <input>:1:52"
    "t_err_div|probe begin { x = 0; println(10 / x) }|ERROR: division by 0 near operator '/' at <input>:1:33"
    "t_err_act|probe begin { while (1) n++ }|ERROR: MAXACTION exceeded"
    "t_err_nest|function f(n) { if (n < 0) return 0; return f(n + 1) } probe begin { println(f(0)) }|ERROR: MAXNESTING exceeded near identifier 'f' at <input>:1:45"
)

build() {
    local c
    for c in "${cases[@]}"; do
        IFS='|' read -r name script _ <<<"$c"
        $STAP -p4 -m "$name" -e "$script" >/dev/null
    done
}

guest() {
    local c rc
    for c in "${cases[@]}"; do
        IFS='|' read -r name _ _ <<<"$c"
        rc=0
        staprun "$name.ko" >"$name.out" 2>"$name.err" || rc=$?
        echo $rc >"$name.rc"
        not grep -q "^$name " /proc/modules
    done
}

check() {
    local c
    for c in "${cases[@]}"; do
        IFS='|' read -r name _ expected <<<"$c"
        [[ $(cat "$name.rc") == 1 ]] || { echo "$name: exit $(cat "$name.rc")"; cat "$name.err"; return 1; }
        [[ ! -s $name.out ]] || { echo "$name: printed"; cat "$name.out"; return 1; }
        grep -qF "$expected" "$name.err" || { echo "$name: expected '$expected' in:"; cat "$name.err"; return 1; }
        grep -q '^WARNING: Number of errors: 1, skipped probes: 0$' "$name.err" ||
            { echo "$name: no summary"; cat "$name.err"; return 1; }
    done
}
