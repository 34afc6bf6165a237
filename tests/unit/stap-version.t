# stap-version - `stap -V` runs and names SystemTap: the smallest smoke test of the binary under test.
# Used by tests/run (as unit/stap-version and asan/stap-version); an example of the unit case format.

run() {
    "$STAP" -V >out 2>&1 || { cat out; return 1; }
    grep -qi systemtap out || { echo "no 'systemtap' in stap -V output:"; cat out; return 1; }
}
