# stap's own SDT markers through tapset/stap_staticmarkers.stp: a module probing stap.pass*, stap.system* and stap.cache_* watches four stap runs in the guest (-p2; -p4 whose make cannot be found; -p4 hitting a module cache build() filled; -p4 storing a module in that cache past a 0 MB limit), each marker with its arguments
# Used by tests/run (issue 31): translator/driver/markers.h, main.c, spawn.c, compile/cache.c.

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
    if (pn() == "stap.pass6.end" && ++runs == 4) exit()
}
probe stap.system { printf("%s %s\n", pn(), command) }
probe stap.system.spawn { printf("%s %d %d\n", pn(), ret, pid > 0) }
probe stap.system.return { printf("%s %d\n", pn(), ret) }
probe stap.cache_get { printf("%s %s %s\n", pn(), source_path, module_path) }
probe stap.cache_add_src, stap.cache_add_mod { printf("%s %s %s\n", pn(), source_path, dest_path) }
probe stap.cache_clean { printf("%s %s\n", pn(), path) }
' >/dev/null
    mkdir -p emptybin fakebin
    # the module cache of runs 3 and 4: one entry, the module run 3 asks for
    SYSTEMTAP_DIR=$CASE_DIR/sc $STAP -p4 -m t_cached -e 'probe begin { exit() }' >/dev/null
    ls "$CASE_DIR"/sc/cache/??/*.ko >cached
    [[ $(grep -c . cached) == 1 ]]
    cp "$(cat cached)" fake.ko
    # run 4's kbuild (a module compiled in the guest takes minutes): the module of M=DIR "built" as
    # a copy of $FAKE_KO; any other make does nothing
    cat >fakebin/make <<'EOF'
#!/bin/sh
for a; do case $a in M=*) m=${a#M=} ;; esac; done
[ -n "$m" ] || exit 0
name=$(sed -n 's/^obj-m := *\([A-Za-z0-9_]*\)\.o$/\1/p' "$m/Kbuild")
cp "$FAKE_KO" "$m/$name.ko"
EOF
    chmod +x fakebin/make
}

guest() {
    staprun t_smark.ko >marks.out 2>marks.err & run=$!
    waitfor marks.out armed
    stap -p2 -e 'probe begin { println(1) }' >p2.out 2>p2.err
    # pass 4 runs make, which is not on this PATH: each command started, and ended with 127
    not env -i PATH="$CASE_DIR/emptybin" HOME=/root SYSTEMTAP_DIR="$CASE_DIR/sd" \
        "$TOP/build/bin/stap" -p4 -e 'probe begin { exit() }' >p4.out 2>p4.err
    # run 3: the module is in the cache (stap.cache_get), no make
    SYSTEMTAP_DIR="$CASE_DIR/sc" $STAP -p4 -m t_cached -e 'probe begin { exit() }' >hit.out 2>hit.err
    # run 4: another module, stored in the cache (stap.cache_add_src, _add_mod); over the 0 MB
    # limit, run 3's entry is removed (stap.cache_clean), the one just stored stays
    echo 0 >sc/cache/cache_mb_limit
    PATH="$CASE_DIR/fakebin:$PATH" FAKE_KO="$CASE_DIR/fake.ko" TMPDIR=/tmp SYSTEMTAP_DIR="$CASE_DIR/sc" \
        $STAP -v -p4 -m t_stored -e 'probe begin { println(2); exit() }' >store.out 2>store.err
    timeout 60 tail --pid=$run -f /dev/null
    wait $run
}

check() {
    [[ $(cat rc) == 0 ]] || { cat err; return 1; }
    [[ $(sed -n 1p marks.out) == armed ]]
    [[ ! -s marks.err ]]
    grep -q 'begin' p2.out
    # one file per run, each starting at its stap.pass0; every marker of a run in its one session
    awk '/^stap\.pass0 /{ n++ } n { print > ("run" n) }' marks.out
    [[ -s run4 && ! -e run5 ]] || { echo "not 4 runs:"; cat marks.out; return 1; }
    not grep -q ' other$' marks.out
    # run 1 (-p2): passes 0 to 2 and the clean-up, in order
    diff - run1 <<'W'
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
    for p in pass0 pass0.end pass1a pass1b pass1.end pass2 pass2.end pass3 pass3.end pass4 pass6 pass6.end; do
        grep -qx "stap.$p same" run2 || { echo "no stap.$p in run 2"; cat run2; return 1; }
    done
    not grep -q 'stap.pass4.end\|stap.pass5\|stap.cache' run2
    grep -Eq '^stap.system make .*-C ' run2
    grep -qx 'stap.system.spawn 0 1' run2
    grep -qx 'stap.system.return 127' run2
    # run 3: pass 4 took the module from the cache: cache_get with the entry's C and module, no make
    local c n
    c=$(cat cached)
    c=${c%.ko}
    [[ $(cat hit.out) == t_cached.ko ]] || { cat hit.out hit.err; return 1; }
    sed -n '/^stap.pass4 /,/^stap.pass4.end /p' run3 | diff - <(printf 'stap.pass4 same\nstap.cache_get %s.c %s.ko\nstap.pass4.end same\n' "$c" "$c")
    not grep -q '^stap.system\|^stap.pass5' run3
    # run 4: the module stap "built" in its temp dir, stored as the cache's one entry now, then run
    # 3's entry removed; nothing was taken from the cache
    [[ $(cat store.out) == t_stored.ko ]] || { cat store.out store.err; return 1; }
    ls "$CASE_DIR"/sc/cache/??/*.ko >stored
    [[ $(grep -c . stored) == 1 ]]
    n=$(cat stored)
    n=${n%.ko}
    [[ $n != "$c" && ! -e $c.ko && ! -e $c.c && -s $n.c ]]
    grep '^stap.cache' run4 | sed -E 's|^([^ ]* )/tmp/stap[A-Za-z0-9]{6}/|\1/tmp/stapXXXXXX/|' >cache4
    printf 'stap.cache_add_src /tmp/stapXXXXXX/t_stored.c %s.c\nstap.cache_add_mod /tmp/stapXXXXXX/t_stored.ko %s.ko\nstap.cache_clean %s.ko\n' \
        "$n" "$n" "$c" | diff - cache4
    # the two temp paths are one run's directory
    [[ $(grep '^stap.cache_add' run4 | cut -d' ' -f2 | xargs -n1 dirname | sort -u | wc -l) == 1 ]]
    grep -Eq '^stap.system make .*M=/tmp/stap' run4
    grep -qx 'stap.system.return 0' run4
    grep -q 'cache over its 0 MB limit .*: removed 1 oldest entry' store.err
}
