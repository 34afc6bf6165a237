# begin probe prints "hello world" and exit() ends the run cleanly (stap -p4 -m, then staprun)
# Used by tests/run; the first of the walking-skeleton cases (issue 2).

build() {
    $STAP -p4 -m t_hello -e 'probe begin { println("hello world"); exit() }' >p4.out
    # -p4 prints the path of the module it kept in the current directory
    [[ $(cat p4.out) == t_hello.ko && -f t_hello.ko ]]
}

guest() {
    staprun t_hello.ko
    # the module is gone once the run is over
    not grep -q '^t_hello ' /proc/modules
}

check() {
    [[ $(cat rc) == 0 ]]
    [[ $(cat out) == "hello world" ]]
    [[ ! -s err ]]
}
