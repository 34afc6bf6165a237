# stap -e runs all five passes inside the guest: pass 5 starts staprun itself on the running kernel, with -G globals
# Used by tests/run (issue 2). Slow under TCG (gcc runs in the emulated guest), so only one case does it.

timeout_s=900

guest() {
    export TMPDIR=/tmp
    # -G sets a global when the run starts (passed on to staprun as who=world)
    stap -v -G who=world -e 'global who = "nobody"; probe begin { println("hello ", who); exit() }' >stap.out 2>stap.err
    echo $? >stap.rc
    # nothing left behind in the temp directory, nothing left loaded
    ls -A /tmp | grep '^stap' >leftover || true
    grep -c '^stap_' /proc/modules >loaded || true
}

check() {
    [[ $(cat stap.rc) == 0 ]] || { cat stap.err; return 1; }
    [[ $(cat stap.out) == "hello world" ]]
    # -v: a timing line for each of the five passes
    for p in 1 2 3 4 5; do grep -q "^Pass $p: " stap.err; done
    [[ ! -s leftover ]]
    [[ $(cat loaded) == 0 ]]
}
