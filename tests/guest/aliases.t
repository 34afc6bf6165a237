# probe aliases from a -I tapset run in the guest: prologue/epilogue, alias of alias, suffix, {a,b}, two definitions, ?, if, error/never probes, library functions
# Used by tests/run (issue 4); the script, its tapset and the expected output are in tests/guest/scripts/.

build() {
    seed_stapdir "$PWD/stapdir"
    SYSTEMTAP_DIR=$PWD/stapdir $STAP -p4 -m t_alias -I "$TOP/tests/guest/scripts/alias-tapset" \
        "$TOP/tests/guest/scripts/aliases.stp" >/dev/null 2>build-err
    # the script's own variable 'n' is used by one expansion of ev.first: no warning
    [[ ! -s build-err ]]
}

guest() {
    staprun t_alias.ko &
    local run=$!
    while kill -0 $run 2>/dev/null; do
        dd if=/dev/zero of=/dev/null bs=1 count=100 2>/dev/null
    done
    local rc=0
    wait $run || rc=$?
    echo $rc >run.rc
}

check() {
    # error() ends the run with status 1; the end probe is skipped, the error probe runs.
    # ev.start has two definitions, so ev.first expands twice: the second expansion
    # has no prologue setting phase, only ev.first's own.
    [[ $(cat run.rc) == 1 ]]
    diff -u "$TOP/tests/guest/scripts/aliases.expected" out
    grep -q "ERROR: deliberate near identifier 'error' at .*aliases.stp:29:2" err
}
