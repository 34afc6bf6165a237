# the seed corpus without debuginfo: every complete script and one-liner that elaborates (-p2) with the kernel's DWARF does so from its BTF alone, but those whose functions BTF does not describe, which fail naming the -dbg package; the counts with DWARF, BTF only and neither
# Used by tests/run (issue 21). The corpus lives beside the repository (../shared/seed-scripts); without it, or without
# the kernel's DWARF to compare with, the case is skipped. "Neither" hides /boot too (a mount namespace), when unshare can.

timeout_s=600
cost_s=60
asan_rerun=0

# Scripts that need what BTF cannot give, and the error they must give without DWARF: scheduler.cpu_on's
# finish_task_switch and link_path_walk are static functions the compiler renamed or inlined (finish_task_switch.isra.0),
# which BTF leaves out.
BTF_GAPS="014_probe-point-examples.stp 041_link-path-walk-backtrace.stp"

# p2 MODE FILE: stap -p2 of FILE as its "# cmd:" runs it (-g kept, arguments 1 1 1 for $1 and @1) with DWARF (dwarf),
# with the DWARF hidden (btf), or with DWARF and /boot hidden (neither); its stderr in FILE.MODE.err
p2() {
    local mode=$1 f=$2 cmd g=() args=() out
    out=$PWD/$(basename "$f").$mode.err
    cmd=$(sed -n 's/^# cmd: //p' "$f" | head -n 1)
    [[ $cmd == *' -g'* ]] && g=(-g)
    grep -qE '\$[1-9]|@[1-9]' "$f" && args=(1 1 1)
    case $mode in
    dwarf)   "$STAP" -r "$KVER" -p2 -w "${g[@]}" "$f" "${args[@]}" >/dev/null 2>"$out" ;;
    btf)     STAP_DEBUGINFO_PATH=$PWD/nodbg "$STAP" -r "$KVER" -p2 -w "${g[@]}" "$f" "${args[@]}" >/dev/null 2>"$out" ;;
    neither) STAP_DEBUGINFO_PATH=$PWD/nodbg unshare -m sh -c 'mount --bind "$0" /boot && exec "$@"' "$PWD/noboot" \
                 "$STAP" -r "$KVER" -p2 -w "${g[@]}" "$f" "${args[@]}" >/dev/null 2>"$out" ;;
    esac
}

run() {
    local dir=$TOP/../shared/seed-scripts f name kind n=0 dw=0 btf=0 neither=0 modes=(dwarf btf) bad=0
    [[ -d $dir ]] || { echo "no seed corpus at $dir"; exit 77; }
    [[ -e /usr/lib/debug/boot/vmlinux-$KVER ]] || { echo "no /usr/lib/debug/boot/vmlinux-$KVER to compare with"; exit 77; }
    mkdir -p nodbg noboot
    export SYSTEMTAP_DIR=$PWD/sysdir
    if unshare -m true 2>/dev/null; then modes+=(neither); fi
    for f in "$dir"/*.stp; do
        name=${f##*/}
        kind=$(sed -n 's/^# kind: //p' "$f" | head -n 1)
        [[ $kind == script || $kind == one-liner || $kind == generated ]] || continue
        n=$((n + 1))
        local with_btf=0
        p2 btf "$f" && with_btf=1 && btf=$((btf + 1))
        if [[ ${modes[2]:-} == neither ]] && p2 neither "$f"; then
            neither=$((neither + 1))
        fi
        p2 dwarf "$f" || continue
        dw=$((dw + 1))
        if (( with_btf )); then
            [[ " $BTF_GAPS " != *" $name "* ]] || { echo "$name: elaborates from BTF now: drop it from BTF_GAPS"; bad=1; }
        elif [[ " $BTF_GAPS " == *" $name "* ]]; then
            grep -q "in the kernel's BTF.*linux-image-$KVER-dbg" "$name.btf.err" ||
                { echo "$name: without DWARF, not the message naming the -dbg package:"; cat "$name.btf.err"; bad=1; }
        else
            echo "$name: elaborates with DWARF, not from BTF:"
            cat "$name.btf.err"
            bad=1
        fi
    done
    [[ ${modes[2]:-} == neither ]] || neither="(not tried: no unshare)"
    echo "seed scripts and one-liners: $n; elaborate with DWARF $dw, from BTF alone $btf, with neither $neither"
    (( n >= 60 && dw >= 40 )) || { echo "too few: the corpus or the kernel's DWARF is not what this case expects"; return 1; }
    return "$bad"
}
