# stap -e runs all five passes inside the guest: pass 5 starts staprun itself on the running kernel, with -G globals
# Used by tests/run (issue 2). Slow under TCG (gcc runs in the emulated guest), so only one case does it.

timeout_s=900

# stap_env CMD...: CMD with the same small environment on the host and in the guest, so that the
# kbuild steps build() records (translator/kbuild_steps.c, keyed by the environment) serve the guest
stap_env() {
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin TMPDIR=/tmp HOME=/root LANG=C \
        SYSTEMTAP_DIR="$CASE_DIR/systemtap" "$@"
}

build() {
    # another script (no module cache hit in the guest): records kbuild's steps and caches the
    # kernel feature tests, as a first stap run on that machine would
    stap_env "$TOP/build/bin/stap" -r "$KVER" -p4 -vv -e 'probe begin { println("primed"); exit() }' \
        >/dev/null 2>prime.err || { cat prime.err; return 1; }
    grep -q "^Pass 4: kbuild's steps recorded in " prime.err
}

guest() {
    # -G sets a global when the run starts (passed on to staprun as who=world)
    stap_env "$TOP/build/bin/stap" -vv -G who=world \
        -e 'global who = "nobody"; probe begin { println("hello ", who); exit() }' >stap.out 2>stap.err
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
    # the guest compiled its own module, through the steps recorded on the host
    grep -q "^Pass 4: cache miss" stap.err
    grep -q "^Pass 4: ran kbuild's recorded steps " stap.err
    [[ ! -s leftover ]]
    [[ $(cat loaded) == 0 ]]
}
