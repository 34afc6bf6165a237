# stap-version - `stap -V` runs and names SystemTap: the smallest smoke test of the binary under test.
# Used by tests/run (as unit/stap-version and asan/stap-version); an example of the unit case format.

run() {
    "$STAP" -V >out 2>&1 || { cat out; return 1; }
    grep -qi systemtap out || { echo "no 'systemtap' in stap -V output:"; cat out; return 1; }
    all_modules
}

# --all-modules (SystemTap's request for every module's symbols) is accepted: symbols always
# come from the running kernel's kallsyms; an unknown long option is still an error
all_modules() {
    "$STAP" --all-modules -p1 -e 'probe begin { exit() }' >out 2>&1 || { cat out; return 1; }
    not "$STAP" --no-such-option -p1 -e 'probe begin {}' >/dev/null 2>&1
}
