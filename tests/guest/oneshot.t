# oneshot: a begin probe that ends the run once its body is done (tapset/oneshot.stp): its whole body runs, then the end probes, and the run exits 0 by itself
# Used by tests/run (issue 31).

build() {
    $STAP -p4 -m t_oneshot -e '
global x
probe begin(-1) { x = 42 }
probe oneshot { printf("once %d\n", x); x++; println("after exit") }
probe begin(1) { println("later begin") }
probe end { printf("end %d\n", x) }' >/dev/null
    # the alias is a begin probe
    $STAP -p2 -e 'probe oneshot { }' | grep -qx 'begin /\* <- oneshot \*/'
}

guest() {
    timeout 60 staprun t_oneshot.ko
}

check() {
    [[ $(cat rc) == 0 ]]
    printf 'once 42\nafter exit\nend 43\n' | diff - out
    [[ ! -s err ]]
}
