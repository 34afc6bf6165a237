#!/usr/bin/env bash
# scale.sh - what pass 4 costs as a probe point's sites grow: wall time, peak memory and module text of
# stap -p4 on one probe and on wildcards of 100s to 1000s of sites, ours against SystemTap's stap.
# Used by bench/run (bench/run scale; table in build/bench/scale.txt and results.txt); also runs alone.
#
# Each row is `stap -p4 --disable-cache -r KVER -m NAME -e 'global n; probe POINT { n++ }'` (the same
# body at every site), run BENCH_SCALE_RUNS times (default 1: the large rows take minutes): median wall
# seconds of the whole process, its peak RSS (the largest of stap and the compilers it waited for,
# GNU time's %M), the module's .text bytes (size -A) and the number of sites (stap -p2 lines). The
# targets (issue 19): each wildcard at most 1.5x the one-probe row's wall time, its text at most 2x the
# one-probe module's plus the site table, no compile over 1 GB. The SystemTap columns run the same
# command with BENCH_SYSTEMTAP (default /usr/bin/stap, Debian's 4.8; rows it cannot build say why).
#
# Environment: BENCH_SCALE_RUNS (default 1), BENCH_SCALE_ROWS (row names to run, default all),
# BENCH_SYSTEMTAP (default /usr/bin/stap; "none" skips it), KVER (default: scripts/guest-kver.sh).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$TOP/build/bench
RUNS=${BENCH_SCALE_RUNS:-1}
STAP=$TOP/build/bin/stap
SYSTEMTAP=${BENCH_SYSTEMTAP:-/usr/bin/stap}
DIR=$OUT/scale

PART=scale
source "$TOP/bench/lib.sh"

# name and probe point of each row; the first is the base the others are set against
ROWS=(
    'one kernel.function("vfs_read")'
    'vfs_star kernel.function("vfs_*")'
    'syscall_star syscall.*'
    'tcp_star kernel.function("tcp_*")'
    'fs_star kernel.function("*@fs/*.c")'
)

# measure WHICH NAME POINT: "WALL_S RSS_MB TEXT_BYTES" of one build (median wall over RUNS), or "- - -" and
# the reason in DIR/WHICH.NAME.err
measure() {
    local which=$1 name=$2 point=$3 cmd=$STAP r walls=() rss=0 m log
    [[ $which == systemtap ]] && cmd=$SYSTEMTAP
    mkdir -p "$DIR/$which.$name"
    for ((r = 1; r <= RUNS; r++)); do
        log=$DIR/$which.$name.err
        rm -f "$DIR/$which.$name"/*.ko
        if ! (cd "$DIR/$which.$name" && /usr/bin/time -f '%e %M' -o ../"$which.$name.time" \
                "$cmd" -p4 --disable-cache -r "$KVER" -m "b_$name" -w -e "global n; probe $point { n++ }") \
                >/dev/null 2>"$log"; then
            echo "- - -"
            return 0
        fi
        read -r w m <"$DIR/$which.$name.time"
        walls+=("$w")
        (( m > rss )) && rss=$m
    done
    printf '%s %d %s\n' "$(printf '%s\n' "${walls[@]}" | median)" $((rss / 1024)) \
        "$(size -A "$DIR/$which.$name/b_$name.ko" | awk '$1 == ".text" { print $2 }')"
}

main() {
    KVER=${KVER:-$("$TOP/scripts/guest-kver.sh")} || die "no kernel to build for (scripts/guest-kver.sh)"
    [[ -x $STAP ]] || die "build/bin/stap missing: run make all first"
    [[ -x /usr/bin/time ]] || die "/usr/bin/time missing (Debian package time)"
    [[ $SYSTEMTAP == none || -x $SYSTEMTAP ]] || SYSTEMTAP=none
    rm -rf "$DIR"
    mkdir -p "$DIR"
    local row name point sites ours theirs base_w base_t
    echo "Pass 4 at scale: stap -p4 --disable-cache -r $KVER, 'global n; probe POINT { n++ }', median of $RUNS run(s) (host, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
    [[ $SYSTEMTAP == none ]] || echo "SystemTap: $("$SYSTEMTAP" -V 2>&1 | head -n 1)"
    printf '%-13s %6s | %8s %7s %10s %6s %6s | %8s %7s %10s\n' row sites "wall s" "RSS MB" ".text B" "x wall" "x text" \
        "ST wall" "ST MB" "ST .text"
    for row in "${ROWS[@]}"; do
        name=${row%% *}
        point=${row#* }
        [[ -z ${BENCH_SCALE_ROWS:-} || " $BENCH_SCALE_ROWS " == *" $name "* ]] || continue
        say "$name: $point"
        sites=$("$STAP" -p2 -r "$KVER" -w -e "probe $point { }" 2>/dev/null | awk '/^# probes/ { p = 1; next } p && !/^#/ { n++ } END { print n + 0 }')
        read -r ow om ot <<<"$(measure ours "$name" "$point")"
        if [[ $SYSTEMTAP == none ]]; then tw=- tm=- tt=-
        else read -r tw tm tt <<<"$(measure systemtap "$name" "$point")"; fi
        if [[ $name == one ]]; then base_w=$ow base_t=$ot; fi
        printf '%-13s %6s | %8s %7s %10s %6s %6s | %8s %7s %10s\n' "$name" "$sites" "$ow" "$om" "$ot" \
            "$(awk -v a="$ow" -v b="${base_w:-}" 'BEGIN { if (a == "-" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }')" \
            "$(awk -v a="$ot" -v b="${base_t:-}" 'BEGIN { if (a == "-" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }')" \
            "$tw" "$tm" "$tt"
    done
    for f in "$DIR"/*.err; do
        [[ -s $f ]] || continue
        grep -q -i 'error' "$f" || continue
        echo "$(basename "$f" .err): $(grep -i -m1 'error' "$f" | cut -c1-160)"
    done
}

main "$@"
