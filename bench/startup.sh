#!/usr/bin/env bash
# startup.sh - how long stap takes to start a script, with the pass-4 module cache missing, hitting and off.
# Used by bench/run (bench/run startup; table in build/bench/startup.txt and results.txt); also runs alone:
# bench/startup.sh > table.txt (progress on stderr).
#
# `stap -v -p4 -r KVER -e SCRIPT` on one fixed small script, BENCH_RUNS times (default 5) in each mode, the
# modes taking turns so that the host's drift affects them alike (after one warm-up run):
#   miss  the cache (a SYSTEMTAP_DIR under build/bench/startup) holds no module: key, kbuild, store
#   hit   the module is in the cache: key, lookup, link or copy; no kbuild
#   off   --disable-cache: kbuild as before the cache existed
# The tapset index stays warm in all modes. The table gives the median wall ms of the whole process (measured
# outside, with the range) and the median of stap's own -v figure for each pass.
#
# Time to the first probe hit: the script prints "first hit" and exits on its first hit, so the figure users
# feel is stap start -> that line. That needs the guest (pass 5); the hook is first_hit() below, which prints
# "not measured" until someone adds it: run `stap SCRIPT` in the guest, once with a cold and once with a
# warm SYSTEMTAP_DIR, and time it to the line (bench/transport.sh already times staprun start -> first
# hit of a prebuilt module; stap's part before staprun is what this table measures on the host).
#
# Environment: BENCH_RUNS (default 5), KVER (default: scripts/guest-kver.sh).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$TOP/build/bench
RUNS=${BENCH_RUNS:-5}
STAP=$TOP/build/bin/stap
DIR=$OUT/startup
SCRIPT='probe kprobe.function("ksys_read") { println("first hit"); exit() }'
MODES=(miss hit off)

PART=startup
source "$TOP/bench/lib.sh"

# one MODE RUN: one stap run in MODE; appends "WALL_US" to DIR/MODE.wall and "PASS MS" lines to DIR/MODE.passes
one() {
    local mode=$1 r=$2 log=$DIR/$1.$2.log t0 t1 opts=() expect
    case $mode in
    miss) rm -rf "$DIR/sd/cache"/??; expect='^Pass 4: cache miss; stored ' ;;   # module entries only
    hit)  expect='^Pass 4: using cached ' ;;
    off)  opts=(--disable-cache); expect='^Pass 4: compiled C into a module ' ;;
    esac
    t0=$(date +%s%N)
    if ! (cd "$DIR/work" && SYSTEMTAP_DIR=$DIR/sd "$STAP" -v -p4 -r "$KVER" "${opts[@]}" -e "$SCRIPT") \
            >/dev/null 2>"$log"; then
        cat "$log" >&2
        die "stap -p4 ($mode) failed"
    fi
    t1=$(date +%s%N)
    grep -q "$expect" "$log" || { cat "$log" >&2; die "run $r of mode $mode: no line matching '$expect'"; }
    echo "$(( (t1 - t0) / 1000 ))" >>"$DIR/$mode.wall"
    sed -n 's/^Pass \([0-9]\): .*[ /]\([0-9][0-9]*\)real ms\.$/\1 \2/p' "$log" >>"$DIR/$mode.passes"
}

# first_hit: the guest-side figure, stap start -> first probe hit (see the header). Not measured yet.
first_hit() {
    echo "time to the first probe hit (guest, stap start -> \"first hit\"): not measured yet (hook: first_hit in bench/startup.sh)"
}

main() {
    KVER=${KVER:-$("$TOP/scripts/guest-kver.sh")} || die "no kernel to build for (scripts/guest-kver.sh)"
    [[ -x $STAP ]] || die "build/bin/stap missing: run make all first"
    rm -rf "$DIR"
    mkdir -p "$DIR/work"
    say "$RUNS runs each of stap -p4 with a cache miss, a hit and --disable-cache"
    one miss 0   # warm-up: the tapset index, the page cache; not counted
    rm -f "$DIR"/*.wall "$DIR"/*.passes
    local r mode
    for ((r = 1; r <= RUNS; r++)); do
        for mode in "${MODES[@]}"; do one "$mode" "$r"; done
    done
    wall() { median <"$DIR/$1.wall" | awk '{ printf "%.1f", $1 / 1000 }'; }
    range() { sort -g "$DIR/$1.wall" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.1f-%.1f", lo / 1000, hi / 1000 }'; }
    pass_ms() { awk -v p="$2" '$1 == p { print $2 }' "$DIR/$1.passes" | median; }
    echo "Start-up: stap -v -p4 -r $KVER on one script, median of $RUNS runs per mode (host, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
    printf '%-6s %9s %15s %6s %6s %6s %6s\n' mode "wall ms" range pass1 pass2 pass3 pass4
    for mode in "${MODES[@]}"; do
        printf '%-6s %9s %15s %6s %6s %6s %6s\n' "$mode" "$(wall "$mode")" "$(range "$mode")" \
            "$(pass_ms "$mode" 1)" "$(pass_ms "$mode" 2)" "$(pass_ms "$mode" 3)" "$(pass_ms "$mode" 4)"
    done
    awk -v m="$(wall miss)" -v h="$(wall hit)" -v o="$(wall off)" 'BEGIN {
        printf "hit: %.1fx faster than a miss; miss - off: %+.1f ms (the key and the store, within kbuild'"'"'s noise)\n", m / h, m - o }'
    first_hit
    echo "(miss: module entries removed before each run, tapset index kept; hit: key, lookup and link;"
    echo " off: --disable-cache, which also skips the tapset index cache (pass 1 reads the library);"
    echo " passes: stap's own whole-ms -v figures; script: $SCRIPT)"
}

main "$@"
