# a process point without PATH, run with -c: the command's program is the path (SystemTap's heuristic)
# Used by tests/run: process.plt("getenv") and process.function... resolve in -c's /usr/bin/ls.

build() {
    $STAP -p4 -m t_nopath -c 'ls /' -e '
global n
probe process.plt("getenv") { n++ }
probe end { printf("getenv calls of %s seen: %d\n", execname(), n > 0) }' >p4.out
    grep -qx t_nopath.ko p4.out
}

guest() {
    staprun -c 'ls /' t_nopath.ko >run.out
    grep -v '^getenv' run.out >/dev/null   # ls's own listing is there too
    grep '^getenv' run.out
}

check() {
    [[ $(cat rc) == 0 ]]
    grep -qx 'getenv calls of .* seen: 1' out
}
