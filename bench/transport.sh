#!/usr/bin/env bash
# transport.sh - output throughput (records/s and bytes/s into a file, loss) and staprun start-to-first-hit in the guest.
# Used by bench/run (part "transport"); writes build/bench/transport.txt. Real-time TCG with 2 vCPUs, not -icount.
#
# Three stap modules, built on the host: a flood of short records (~24 bytes) and one of long records
# (~200 bytes), each printed from a kprobe on ksys_read for BENCH_FLOOD_S seconds while dd bs=1 runs on
# both CPUs, written with `staprun -o FILE` at the default buffer size (1 MB per CPU); and a module whose
# begin probe prints the time, run BENCH_RUNS times to measure how long staprun takes from its start to
# the first probe hit. Figures are guest real time under TCG emulation: compare them with each other
# and across commits, not with native hardware.
set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
export TOP
# shellcheck source=../tests/lib/guest.sh
source "$TOP/tests/lib/guest.sh"
unset GUEST_ICOUNT

OUT=$TOP/build/bench
DIR=$OUT/transport
STAP=$TOP/build/bin/stap
FLOOD_S=${BENCH_FLOOD_S:-5}
RUNS=${BENCH_RUNS:-5}
KVER=${KVER:-$(guest_kver)}

source "$TOP/bench/lib.sh"

FIRST='probe begin { printf("%d\n", gettimeofday_ns()); exit() }'

build() {
    local pad
    pad=$(printf '%0190d' 0)
    "$STAP" -p4 -r "$KVER" -m bt_short -e "
global s, t0
probe begin { t0 = gettimeofday_ns() }
probe kprobe.function(\"ksys_read\") { s <<< 1; printf(\"rec cpu%d pid%d\\n\", cpu(), pid()) }
probe timer.s($FLOOD_S) { exit() }
probe end { printf(\"produced %d ns %d\\n\", @count(s), gettimeofday_ns() - t0) }" >/dev/null
    "$STAP" -p4 -r "$KVER" -m bt_long -e "
global s, t0
probe begin { t0 = gettimeofday_ns() }
probe kprobe.function(\"ksys_read\") { s <<< 1; printf(\"%d %s\\n\", cpu(), \"$pad\") }
probe timer.s($FLOOD_S) { exit() }
probe end { printf(\"produced %d ns %d\\n\", @count(s), gettimeofday_ns() - t0) }" >/dev/null
    "$STAP" -p4 -r "$KVER" -m bt_first -e "$FIRST" >/dev/null
    # the same script through stap in the guest: a cache hit on what the host stores here
    SYSTEMTAP_DIR=$DIR/systemtap "$STAP" -p4 -r "$KVER" -e "$FIRST" >/dev/null
    # a miss: passes 1-4 with kbuild on the host (gcc in the TCG guest would take minutes)
    local i t0 t1
    for ((i = 1; i <= RUNS; i++)); do
        t0=$(date +%s%N)
        "$STAP" -p4 -r "$KVER" --disable-cache -e "$FIRST" >/dev/null
        t1=$(date +%s%N)
        echo "miss_host $((t1 - t0))"
    done >"$DIR/miss.txt"
}

guest_script() {
    cat <<EOF
#!/bin/bash
set -u
cd "$DIR"
export PATH="$TOP/build/bin:\$PATH"
flood() {
    (taskset -c 0 dd if=/dev/zero of=/dev/null bs=1 count=1000000000 2>/dev/null &
     taskset -c 1 dd if=/dev/zero of=/dev/null bs=1 count=1000000000 2>/dev/null &
     wait) & load=\$!
    staprun -o \$1.txt \$1.ko 2>\$1.err
    pkill -x dd; wait \$load
    echo "\$1 \$(tail -n 1 \$1.txt) bytes \$(stat -c %s \$1.txt) lost \$(sed -n 's/^WARNING: \([0-9]*\) records.*lost\$/\1/p' \$1.err)"
    rm -f \$1.txt
}
flood bt_short
flood bt_long
for i in \$(seq $RUNS); do
    t0=\$(date +%s%N)
    hit=\$(staprun bt_first.ko)
    echo "first \$((hit - t0))"
done
export TMPDIR=/tmp SYSTEMTAP_DIR="$DIR/systemtap"
for i in \$(seq $RUNS); do
    t0=\$(date +%s%N)
    hit=\$(stap -e '$FIRST')
    echo "stap_hit \$((hit - t0))"
done
EOF
}

main() {
    rm -rf "$DIR"
    mkdir -p "$DIR/case"
    (cd "$DIR" && build)
    guest_script >"$DIR/case/guest-run"
    chmod +x "$DIR/case/guest-run"
    echo $((FLOOD_S * 4 + 120)) >"$DIR/case/guest-timeout"
    guest_batch "$DIR" "$DIR/case" || true
    [[ -f $DIR/case/rc && $(cat "$DIR/case/rc") == 0 ]] || {
        say "transport: the guest part failed"; cat "$DIR/case/out" "$DIR/case/err" >&2 2>/dev/null; return 1; }
    {
        echo "Transport (guest real time, TCG, 2 vCPUs; dd bs=1 on both CPUs, kprobe on ksys_read," \
             "staprun -o FILE, default 1 MB per-CPU buffers, ${FLOOD_S} s runs):"
        printf '  %-34s %12s %12s %10s %8s\n' "flood" "records/s" "MB/s" "records" "lost"
        awk '$2 == "produced" {
                 rate = $3 / ($5 / 1e9); mb = $7 / ($5 / 1e9) / 1e6
                 printf "  %-34s %12.0f %12.2f %10d %8s\n", ($1 == "bt_short" ? "short records (~24 bytes)" : "long records (~200 bytes)"), rate, mb, $3, ($9 == "" ? 0 : $9) }' \
            "$DIR/case/out"
        med() { sort -g | awk '{ v[++n] = $1 } END { if (n) printf "%.1f", (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'; }
        local first hit miss
        first=$(awk '$1 == "first" { print $2 / 1e6 }' "$DIR/case/out" | med)
        hit=$(awk '$1 == "stap_hit" { print $2 / 1e6 }' "$DIR/case/out" | med)
        miss=$(awk '$1 == "miss_host" { print $2 / 1e6 }' "$DIR/miss.txt" | med)
        echo "Start to first probe hit (a begin probe printing the time; medians of $RUNS):"
        printf '  %-60s %8s ms\n' "staprun NAME.ko (guest)" "$first" \
            "stap -e, module cache hit (all five passes in the guest)" "$hit" \
            "stap -p4 --disable-cache, a miss (host, kbuild)" "$miss"
        printf '  %-60s %8s ms\n' "a miss end to end (host passes 1-4 + guest staprun)" \
            "$(awk -v a="$miss" -v b="$first" 'BEGIN { printf "%.1f", a + b }')"
    } >"$OUT/transport.txt"
    cat "$OUT/transport.txt"
}

main "$@"
