# stap -T SECONDS: one more timer probe that calls exit() (end probes run), its own module name, bad values refused
# Used by tests/run (issue 15).

run() {
    source "$TOP/tests/lib/assert.sh"
    local script='probe end { println("end") }'
    expect_ok -p2 -T 3 -e "$script"
    grep -qx 'timer.s(3) /\* <- timer.s(3) \*/' stdout
    grep -qx 'end /\* <- end \*/' stdout
    expect_ok -p2 -e "$script"
    not grep -q 'timer' stdout
    # the module differs with and without -T, and with another timeout
    expect_ok -p3 -r "$KVER" -T 3 -e "$script"
    grep -q 'stp_exit\|exit' stdout
    local a b c
    a=$(grep '#define STP_MODULE_NAME' stdout)
    expect_ok -p3 -r "$KVER" -e "$script"
    b=$(grep '#define STP_MODULE_NAME' stdout)
    expect_ok -p3 -r "$KVER" -T 4 -e "$script"
    c=$(grep '#define STP_MODULE_NAME' stdout)
    [[ $a != "$b" && $a != "$c" && $b != "$c" ]]
    # bad values
    expect_plain_error "-T needs a timeout in whole seconds from 1 to 1000000, got '0'" -T 0 -e "$script"
    expect_plain_error "-T needs a timeout in whole seconds" -T 1.5 -e "$script"
    expect_plain_error "-T needs a timeout in whole seconds" -T '' -e "$script"
    expect_plain_error "-T needs a timeout in whole seconds" -T 2000000 -e "$script"
}
