# seed corpus, user-space probes: 071 (an SDT marker input__val of ./myprog, $arg1 printed per hit) as its INDEX.md row describes, on tests/sdt/myprog.c built with <sys/sdt.h>
# Used by tests/run (issue 17). The corpus lives beside the repository (SEED_CORPUS, default TOP/../shared/seed-scripts); without it the case is skipped.

timeout_s=120

build() {
    seed_need 071
    [[ -f /usr/include/x86_64-linux-gnu/sys/sdt.h || -f /usr/include/sys/sdt.h ]] ||
        { echo "no <sys/sdt.h> (systemtap-sdt-dev)"; exit 77; }
    # the seed names its program ./myprog: built here, the script translated from here
    gcc -Wall -O2 -o myprog "$TOP/tests/sdt/myprog.c"
    $STAP -p4 -m seed_071 "$(seed_file 071)" >/dev/null
    printf '%s\n' 3 -5 42 0 2147483647 -2147483648 >numbers
    seq 1 50 >more
}

guest() {
    local i
    # the program reads numbers and prints each doubled (to a file, so that 071.out holds the probe's output)
    for i in 1 2; do
        seed_run 071 "sh -c '$CASE_DIR/myprog <$CASE_DIR/numbers >$CASE_DIR/prog$i.out'"
        mv 071.out 071-$i.out; mv 071.err 071-$i.err; mv 071.rc 071-$i.rc
    done
    seed_run 071 "sh -c '$CASE_DIR/myprog <$CASE_DIR/more >/dev/null'"
}

check() {
    local i
    [[ $(cat rc) == 0 ]]
    # one line per marker hit, the value read (its int argument, signs and extremes kept)
    for i in 1 2; do
        [[ $(cat 071-$i.rc) == 0 ]]
        diff numbers 071-$i.out
        only_skip_warnings 071-$i.err
        [[ $(cat prog$i.out) == $'6\n-10\n84\n0\n4294967294\n-4294967296' ]]
    done
    [[ $(cat 071.rc) == 0 ]]
    diff more 071.out
    only_skip_warnings 071.err
}
