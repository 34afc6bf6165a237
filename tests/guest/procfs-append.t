# procfs-append: $value .= builds a read value larger than MAXSTRINGLEN (maxsize 4000)
# Used by tests/run (guest/procfs-append); needs `.=` on context variables (translator/dwarf/dwvars.c).

build() {
    $STAP -p4 -m t_pfcat -e '
probe procfs("big").read.maxsize(4000) {
    $value = "start\n"
    for (i = 0; i < 100; i++) $value .= sprintf("line %03d ..............................\n", i)
    $value .= "end\n"
}' >/dev/null
}

guest() {
    local pid io i
    staprun t_pfcat.ko >run.out 2>run.err & pid=$!
    io=$(stapio_of $pid)
    for i in $(seq 300); do cat /proc/systemtap/t_pfcat/big >big.read 2>/dev/null && break; nap 0.1; done
    kill -INT "$io"
    wait $pid
}

check() {
    [[ ! -s run.err ]]
    # 6 + 100 * 41 = 4106 bytes built, cut at 4000
    [[ $(wc -c <big.read) == 4000 ]]
    [[ $(head -n 1 big.read) == start ]]
    [[ $(sed -n 2p big.read) == "line 000 .............................." ]]
    [[ $(sed -n 98p big.read) == "line 096 .............................." ]]
}
