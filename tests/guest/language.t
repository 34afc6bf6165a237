# the first language subset runs in a begin probe: arithmetic, strings, printf, loops, arrays, functions
# Used by tests/run (issue 2); the script and expected output are in tests/guest/scripts/.

build() {
    $STAP -p4 -m t_lang "$TOP/tests/guest/scripts/language.stp" >/dev/null
}

guest() {
    staprun t_lang.ko
}

check() {
    diff -u "$TOP/tests/guest/scripts/language.expected" out
    [[ ! -s err ]]
}
