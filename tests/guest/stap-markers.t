# stap's own SDT markers through tapset/stap_staticmarkers.stp: a module probing stap.pass*, stap.system* and stap.cache_get watches two stap runs in the guest (-p2; -p4 whose make cannot be found), each marker with its arguments
# Used by tests/run (issue 31): translator/driver/markers.h, main.c, spawn.c, cache.c.

build() {
    # process("stap") is the stap on $PATH, as in the guest
    PATH=$TOP/build/bin:$PATH $STAP -p4 -m t_smark -e '
global sess, runs
probe begin { println("armed") }
probe stap.pass0, stap.pass1a, stap.pass1b, stap.pass2, stap.pass3, stap.pass4, stap.pass5, stap.pass6,
      stap.pass0.end, stap.pass1.end, stap.pass2.end, stap.pass3.end, stap.pass4.end, stap.pass5.end,
      stap.pass6.end {
    if (!(pid() in sess)) sess[pid()] = session
    printf("%s %s\n", pn(), session == sess[pid()] && session ? "same" : "other")
    if (pn() == "stap.pass6.end" && ++runs == 2) exit()
}
probe stap.system { printf("%s %s\n", pn(), command) }
probe stap.system.spawn { printf("%s %d %d\n", pn(), ret, pid > 0) }
probe stap.system.return { printf("%s %d\n", pn(), ret) }
probe stap.cache_get { printf("%s %s %s\n", pn(), source_path, module_path) }
' >/dev/null
    mkdir -p emptybin
}

guest() {
    staprun t_smark.ko >marks.out 2>marks.err & run=$!
    waitfor marks.out armed
    stap -p2 -e 'probe begin { println(1) }' >p2.out 2>p2.err
    # pass 4 runs make, which is not on this PATH: each command started, and ended with 127
    not env -i PATH="$CASE_DIR/emptybin" HOME=/root SYSTEMTAP_DIR="$CASE_DIR/sd" \
        "$TOP/build/bin/stap" -p4 -e 'probe begin { exit() }' >p4.out 2>p4.err
    timeout 60 tail --pid=$run -f /dev/null
    wait $run
}

check() {
    [[ $(cat rc) == 0 ]] || { cat err; return 1; }
    grep -q 'begin' p2.out
    # run 1 (-p2): passes 0 to 2 and the clean-up, in order, one session
    cat >want1 <<'W'
stap.pass0 same
stap.pass0.end same
stap.pass1a same
stap.pass1b same
stap.pass1.end same
stap.pass2 same
stap.pass2.end same
stap.pass6 same
stap.pass6.end same
W
    # run 2 (-p4): passes 0 to 3, pass 4 started, make run and ended with 127, the clean-up
    sed -n '2,10p' marks.out | diff want1 -
    sed -n '11,$p' marks.out >run2
    grep -c . run2 >/dev/null
    for p in pass0 pass0.end pass1a pass1b pass1.end pass2 pass2.end pass3 pass3.end pass4 pass6 pass6.end; do
        grep -qx "stap.$p same" run2 || { echo "no stap.$p in run 2"; cat run2; return 1; }
    done
    not grep -q 'stap.pass4.end\|stap.pass5' run2
    grep -Eq '^stap.system make .*-C ' run2
    grep -qx 'stap.system.spawn 0 1' run2
    grep -qx 'stap.system.return 127' run2
    [[ $(sed -n 1p marks.out) == armed ]]
    [[ ! -s marks.err ]]
}
