#!/usr/bin/env bash
# btf-pass2.sh - pass 2 of `kernel.function("vfs_read") { println($count) }` typed from BTF with an empty cache (issue
# 21: under 100 ms), beside the DWARF path and SystemTap 4.8's in the same run.  Used by bench/run (bench/run btf).
#
# Rows, each BENCH_RUNS times (default 5) under build/bench/measure, every run in a new empty SYSTEMTAP_DIR/HOME:
#   running kernel, BTF   stap -p2 for the host's running kernel: its BTF from /sys/kernel/btf/vmlinux (a production
#                         host with no debuginfo; here the host's kernel, whose DWARF is not installed)
#   KVER, BTF             stap -r KVER -p2 with its DWARF hidden (STAP_DEBUGINFO_PATH empty): the BTF of /boot/vmlinuz-KVER,
#                         decompressed (a module built for a kernel that is not running)
#   KVER, DWARF           stap -r KVER -p2 with linux-image-KVER-dbg's vmlinux
#   SystemTap 4.8         Debian's stap -r KVER -p2 (DWARF; it has no BTF path), when installed (bench/pass2.sh installs it)
# Medians of wall ms, CPU ms and peak RSS MB.  KVER: scripts/guest-kver.sh.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STAP=${BENCH_OURS:-$TOP/build/bin/stap}
SYSTAP=${BENCH_SYSTEMTAP:-/usr/bin/stap}
RUNS=${BENCH_RUNS:-5}
KVER=${KVER:-$("$TOP/scripts/guest-kver.sh")}
DIR=$TOP/build/bench/btf-pass2
MEASURE=$TOP/build/bench/measure
SCRIPT='probe kernel.function("vfs_read") { println($count) }'

say() { echo "btf-pass2: $*" >&2; }

# row LABEL ENV... -- ARGS...: RUNS cold runs of stap ARGS -e SCRIPT (ENV set), each in a fresh SYSTEMTAP_DIR and HOME;
# prints the table row (or why the tool refused the script)
ROW=0
row() {
    local label=$1 tool=$STAP r d rc=0 err='' f
    shift
    f=$DIR/row$((ROW += 1))
    local -a env=()
    while [[ $1 != -- ]]; do env+=("$1"); shift; done
    shift
    [[ ${env[0]:-} == SYSTEMTAP=1 ]] && { tool=$SYSTAP; env=("${env[@]:1}"); }
    for ((r = 1; r <= RUNS; r++)); do
        d=$(mktemp -d "$DIR/run.XXXXXX")
        env -u DEBUGINFOD_URLS HOME="$d" SYSTEMTAP_DIR="$d/.systemtap" "${env[@]}" \
            "$MEASURE" "$f.$r" "$tool" "$@" -p2 -e "$SCRIPT" >/dev/null 2>"$f.err" || rc=$?
        rm -rf "$d"
        if (( rc )); then
            err=$(grep -m1 -i 'error' "$f.err" || head -n 1 "$f.err")
            break
        fi
    done
    if [[ -n $err ]]; then
        printf '| %s | refused: %s | | |\n' "$label" "$err"
        return 0
    fi
    # measure's line: WALL_US MAXRSS_KB STATUS CPU_US
    cat "$f".[0-9]* | awk -v l="$label" '
        { w[NR] = $1 / 1000; m[NR] = $2 / 1024; c[NR] = $5 / 1000 }
        function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
        END { printf "| %s | %.1f | %.1f | %.1f |\n", l, med(w, NR), med(c, NR), med(m, NR) }'
}

main() {
    [[ -x $STAP ]] || { echo "btf-pass2: build/bin/stap missing: run make all first" >&2; exit 1; }
    rm -rf "$DIR"
    mkdir -p "$DIR/nodbg"
    cc -std=c11 -Wall -Wextra -Werror -O2 -o "$MEASURE" "$TOP/bench/measure.c"
    say "$RUNS cold runs of each row"
    echo "Pass 2 of \`$SCRIPT\`, cold (an empty cache every run), median of $RUNS runs, load average $(cut -d' ' -f1 /proc/loadavg)"
    echo
    echo '| row | wall ms | CPU ms | peak MB |'
    echo '| --- | ---: | ---: | ---: |'
    if [[ -r /sys/kernel/btf/vmlinux ]]; then
        row "running kernel ($(uname -r)), BTF from sysfs" STAP_DEBUGINFO_PATH="$DIR/nodbg" --
    fi
    row "$KVER, BTF from /boot/vmlinuz" STAP_DEBUGINFO_PATH="$DIR/nodbg" -- -r "$KVER"
    row "$KVER, DWARF" -- -r "$KVER"
    if [[ -x $SYSTAP ]]; then
        row "SystemTap $("$SYSTAP" -V 2>&1 | sed -n '1s/.*(version \([^/ ,]*\).*/\1/p'), $KVER, DWARF" SYSTEMTAP=1 -- -r "$KVER"
    else
        echo "| SystemTap | not installed ($SYSTAP; bench/run pass2 installs Debian's) | | |"
    fi
}

main "$@"
