# @defined ruling out a branch: the target variables there are not bound (no errors), kept ones are
# Used by tests/run (issue 7): translator/targets/bind.c (bind_stmt, the EX_TERNARY case, const_cond).

timeout_s=120

run() {
    if [[ ! -e /usr/lib/debug/boot/vmlinux-$KVER ]]; then
        echo "no kernel debuginfo (/usr/lib/debug/boot/vmlinux-$KVER)"
        exit 77
    fi
    local R=(-r "$KVER") VR='probe kernel.function("vfs_read")'
    # $return in an entry probe: an error on its own ...
    not "$STAP" -p2 "${R[@]}" -e "$VR"' { println($return) }' 2>err
    grep -q 'only available in .return probes' err
    # ... not in the branch @defined($return) rules out; the else branch is still bound
    "$STAP" -p3 "${R[@]}" -e "$VR"' { if (@defined($return)) println($return) else println($count) }' >out
    not "$STAP" -p2 "${R[@]}" -e "$VR"' { if (@defined($return)) println($return) else println($nope) }' 2>err
    grep -q "no variable 'nope'" err
    # !, && and || fold; a missing member behind @defined too; the kept branch still errs when wrong
    "$STAP" -p3 "${R[@]}" -e "$VR"' { if (!@defined($nope) || $nope) println(1)
        if (@defined($file->f_nosuch) && $file->f_nosuch) println(2)
        x = @defined($nope) ? $nope : 7; println(x) }' >out
    grep -q 'l_x = 7LL;' out
    not grep -q 'nope\|f_nosuch' out
    not "$STAP" -p2 "${R[@]}" -e "$VR"' { if (!@defined($nope)) println($nope) }' 2>err
    grep -q "semantic error" err
    # a condition that is not constant binds both branches
    not "$STAP" -p2 "${R[@]}" -e "$VR"' { if ($count) println($nope) }' 2>err
    grep -q "semantic error" err
}
