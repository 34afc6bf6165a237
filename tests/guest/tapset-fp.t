# tapset functions of issue tapfn: the fp_* doubles and string_to_fp (tapset/floatingpoint.stp), is_myproc, module_size, task_backtrace; dump_stack and panic refused without -g
# Used by tests/run: tapset/floatingpoint.stp and runtime/core/softfloat.h, tapset/linux/context-ids.stp
# (is_myproc, module_size), context-unwind.stp (task_backtrace, runtime/core/symbols.h), guru-misc.stp
# (dump_stack, panic: built with -g only, never run: a stack dump in dmesg is kernel trouble to tests/run,
# and a panic ends the guest).

timeout_s=90

build() {
    gcc -O1 -Wall -o myproc_helper "$TOP/tests/guest/scripts/tapfn/myproc_helper.c"
    $STAP -p4 -m t_tffp "$TOP/tests/guest/scripts/tapfn/fp.stp" >/dev/null
    $STAP -p4 -m t_tfmisc "$TOP/tests/guest/scripts/tapfn/misc.stp" >/dev/null
    # guru mode only: refused without -g at the call, built with it
    local f
    for f in 'dump_stack()' 'panic("tapfn")'; do
        not $STAP -p2 -e "probe never { $f }" 2>guru.err
        grep -q "^<input>:1:15: semantic error: function '${f%%(*}' is guru-mode only: it needs guru mode (-g)" guru.err ||
            { cat guru.err; return 1; }
        $STAP -g -p4 -e "probe never { $f }" >/dev/null
    done
}

guest() {
    staprun t_tffp.ko >fp.out
    staprun -c "sh -c '$PWD/myproc_helper && setpriv --reuid=65534 --regid=65534 --clear-groups $PWD/myproc_helper'" \
        t_tfmisc.ko >misc.out
}

check() {
    cat >want.out <<'EOW'
add 1.333333
sub -9.000000
mul 0.300000
div 0.666667
rem -1.000000
rem2 1.000000
sqrt 1.414214
sqrt17 1.41421356237309515
third20 0.33333333333333331483
big 1000000016000000000
bits 4607182418800017408 4599676419421066581
cmp 1110110
nan -nan 000
inf inf -inf
to_long -2 -2 -3 -2 -3 -3
to_long_nan -9223372036854775808
f32 1.500 0.100000001490
long -9007199254740992
str 4591870180066957722 -1.250 inf 1
caught string_to_fp: "1.5x" is not a decimal number
caught fp_to_long: rounding mode 5 is not one of 0-4 and 6
EOW
    diff want.out fp.out
    # is_myproc: root ran staprun, so begin (root) and the helper as root are "mine", as nobody not
    grep -qx 'begin_myproc 1' misc.out
    grep -qx 'helper 0 1' misc.out
    grep -qx 'helper 65534 0' misc.out
    # module_size: the code is the .ko's executable sections but those freed after init (the
    # loader aligns each and rounds up to pages), the rest is there too
    local text data text_min=0 size
    [[ $(grep '^size ' misc.out) =~ ^size\ ([0-9]+)t\+([0-9]+)d$ ]]
    text=${BASH_REMATCH[1]} data=${BASH_REMATCH[2]}
    for size in $(readelf -SW t_tfmisc.ko | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $7 ~ /X/ && $1 !~ /^\.init/ { print $5 }'); do
        text_min=$((text_min + 16#$size))
    done
    (( text_min > 4096 && text >= text_min && text <= text_min + 16384 && data > 0 && data < 67108864 )) ||
        { echo "module_size ${text}t+${data}d, the .ko's code $text_min bytes"; return 1; }
    grep -qx 'caught task_backtrace: 0x1000 is not a live task' misc.out
    # task_backtrace: hex addresses; the helper's own stack is in its system call (the script's frames
    # left out), its parent shell's sleeps in wait
    grep -Eqx 'own (0x[0-9a-f]{16} ){3,}' misc.out
    grep -Eqx 'parent (0x[0-9a-f]{16} ){3,}' misc.out
    sed -n '/^own_syms /,/^parent /p' misc.out >own_syms.out
    grep -q 'do_syscall_64' own_syms.out
    not grep -q 't_tfmisc' own_syms.out
    sed -n '/^parent_syms /,$p' misc.out >parent_syms.out
    grep -q 'schedule' parent_syms.out
    grep -Eq 'wait' parent_syms.out
}
