# kprobe on ksys_read counts reads per program; a timer prints the table and exits (dd >= 1000)
# Used by tests/run (issue 2): kprobes, string-keyed arrays, foreach, printf, timer.s, exit().

build() {
    $STAP -p4 -m t_kcount -e '
global n
probe kprobe.function("ksys_read") { n[execname()]++ }
probe timer.s(1) {
    foreach (k in n)
        printf("%s %d\n", k, n[k])
    exit()
}' >/dev/null
}

guest() {
    # keep dd reading one byte at a time for as long as the probes are armed
    run_reading t_kcount.ko
}

check() {
    [[ $(cat rc) == 0 ]]
    # every line is "<program> <count>"; dd made at least 1000 reads
    not grep -vE '^[^ ]+ [0-9]+$' out
    awk '$1 == "dd" && $2 >= 1000 { found = 1 } END { exit !found }' out
}
