# runner-env - checks the unit test contract of tests/run: fresh scratch cwd, STAP/TOP/KVER set.
# Used by tests/run (as unit/runner-env and asan/runner-env); an example of the unit case format.

run() {
    [[ -z $(ls -A) ]] || { echo "cwd $PWD is not empty"; ls -A; return 1; }
    [[ $PWD == "$TOP"/build/tests/* ]] || { echo "cwd $PWD not under build/tests"; return 1; }
    [[ $STAP == /* && $STAP == */bin/stap ]] || { echo "STAP=$STAP is not an absolute .../bin/stap"; return 1; }
    [[ -f $TOP/Makefile ]] || { echo "TOP=$TOP is not the repository root"; return 1; }
    [[ -z $KVER || -d /lib/modules/$KVER ]] || { echo "KVER=$KVER has no /lib/modules/$KVER"; return 1; }
    echo scratch >file   # the scratch directory is writable
}
