# output header: self-describing -S files (a module with a procfs("header") file) carry the script's header lines in every file, also those stapio writes after the run stopped (the end probe's output)
# Used by tests/run; covers stapio/header.c (the script's text as last read when the file refuses reads).

timeout_s=120

build() {
    # the end probe writes ~1.5 MB of 1,000-byte lines: with -S 1 the second file begins after the
    # run stopped, when the procfs file refuses reads
    $STAP -p4 -m t_ohdr -DMAXACTION=100000 -e '
global reads
probe procfs("header").read { reads++; $value = sprintf("note: header read %d\nstate: running\n", reads) }
probe begin { println("begin") }
probe end { for (i = 1; i <= 1500; i++) printf("%04d %994s\n", i, "x") }' >/dev/null
}

guest() {
    rm -rf hdr
    mkdir hdr
    timeout 60 staprun -b 4 -o "$PWD/hdr/out" -S 1 t_ohdr.ko >run.out 2>run.err &
    local pid=$! i
    for i in $(seq 100); do [[ -s hdr/out.0 ]] && break; nap 0.1; done
    kill -INT "$(pgrep -x stapio)"
    wait $pid
    ls hdr >files
}

check() {
    [[ $(cat rc) == 0 ]]
    [[ $(cat files) == $'out.0\nout.1' ]]
    local f n
    for f in hdr/out.0 hdr/out.1; do
        # stapio's lines, then the script's two, then the records
        grep -q "^# file: .*/$f number: ${f##*.}\$" "$f" || { echo "$f: no file line"; return 1; }
        grep -Eq '^# note: header read [0-9]+$' "$f" || { echo "$f: no script header line"; head -20 "$f"; return 1; }
        grep -qx '# state: running' "$f" || { echo "$f: no script state line"; return 1; }
        tail -n 1 "$f" | grep -Eq '^# end: file: .* records: [0-9]+ bytes: [0-9]+ not_written: 0$'
    done
    # every line of the end probe, in order, across the two files
    n=$(cat hdr/out.0 hdr/out.1 | grep -Ec '^[0-9]{4} +x$')
    [[ $n == 1500 ]] || { echo "$n lines of the end probe, expected 1500"; return 1; }
    cat hdr/out.0 hdr/out.1 | grep -E '^[0-9]{4} ' | cut -c1-4 | sed 's/^0*//' | diff - <(seq 1500) >/dev/null
}
