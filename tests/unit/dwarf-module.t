# module("...").function probe points on a module built here (kbuild, with debuginfo): names, files, anchors, refusals, errors
# Used by tests/run (issue 7): translator/dwarf/debuginfo.c on .ko files (libdwfl relocation), providers/kernelfn.c for modules.

timeout_s=300

make_module() {
    mkdir -p kmod
    cat >kmod/m1.c <<'EOF'
#include <linux/module.h>
static int total;
static noinline int tmod_add(int a, int b) { return a + b + total; }
static inline int tmod_sq(int x) { return x * x; }
static noinline int dup(int v) { return v + total; }
int tmod_exported(int x) { total += tmod_add(x, tmod_sq(x)) + dup(x); return total; }
EXPORT_SYMBOL(tmod_exported);
int tmod_other(int x);
static int __init tmod_init(void) { return tmod_other(tmod_exported(1)) < 0; }
static void __exit tmod_exit(void) { total = 0; }
module_init(tmod_init);
module_exit(tmod_exit);
MODULE_LICENSE("GPL");
EOF
    cat >kmod/m2.c <<'EOF'
static noinline int dup(int v) { return v * 3; }
int tmod_other(int x) { return dup(x) + 1; }
EOF
    printf 'obj-m := dw-test.o\ndw-test-y := m1.o m2.o\n' >kmod/Kbuild
    make -s -C "/lib/modules/$KVER/build" M="$PWD/kmod" modules >kmod/build.log 2>&1 || { cat kmod/build.log; return 1; }
}

sites() {
    "$STAP" -p2 -r "$KVER" -e "probe $1 {}" | sed -n 's@ /\* <- .*@@p'
}

run() {
    source "$TOP/tests/lib/assert.sh"
    [[ -n $KVER && -e /lib/modules/$KVER/build/Makefile ]] || { echo "no kernel build tree for $KVER"; return 77; }
    export SYSTEMTAP_DIR=$PWD/stapdir
    rm -rf stapdir
    make_module
    local K=$PWD/kmod/dw-test.ko M id
    M="module(\"$K\")"
    id=$(readelf -n "$K" | sed -n 's/^ *Build ID: //p')

    # the module's name is the kernel's (dw_test), its index is cached by build id
    "$STAP" -v -p2 -r "$KVER" -e "probe $M.function(\"tmod_add\") {}" >out 2>err
    grep -q "^DWARF index of $K: [0-9]* functions, .* built and saved to $PWD/stapdir/cache/dwarf/$id.idx" err
    "$STAP" -v -p2 -r "$KVER" -e "probe $M.function(\"tmod_add\") {}" >out 2>err
    grep -q "^DWARF index of $K: .* loaded from" err

    # every function: files are absolute (built outside the kernel tree); __init code is left out
    "$STAP" -v -r "$KVER" -l "$M.function(\"*\")" >list 2>err
    diff list - <<EOF
$M.function("dup@$PWD/kmod/m1.c:5")
$M.function("dup@$PWD/kmod/m2.c:1")
$M.function("tmod_add@$PWD/kmod/m1.c:3")
$M.function("tmod_exit@$PWD/kmod/m1.c:10")
$M.function("tmod_exported@$PWD/kmod/m1.c:6")
$M.function("tmod_other@$PWD/kmod/m2.c:2")
$M.function("tmod_sq@$PWD/kmod/m1.c:4")
EOF
    grep -q "^Skipping $M.function(\"tmod_init@$PWD/kmod/m1.c:9\") at 0x[0-9a-f]*: in __init code (.init.text), freed once the module is loaded$" err
    [[ $(sites "$M.function(\"*\").exported") == "$M.function(\"tmod_exported@$PWD/kmod/m1.c:6\").exported" ]]
    [[ $(sites "$M.function(\"*@m2.c\").call" | wc -l) == 2 ]]
    [[ $(sites "$M.function(\"tmod_sq\").inline") == "$M.function(\"tmod_sq@$PWD/kmod/m1.c:4\").inline" ]]

    # kprobes find MODULE:symbol: a function's own symbol when its name is unique in the module, else
    # the nearest unique function symbol before it in its section (the two static dup functions)
    "$STAP" -p3 -r "$KVER" -e "probe $M.function(\"tmod_add\"), $M.function(\"dup\") {}" >c
    grep -q '\.symbol = "dw_test:tmod_add", \.offset = 0x0UL, \.module = "dw_test"' c
    readelf -sW "$K" >syms
    local anchor off value want
    while read -r anchor off; do
        [[ $anchor == tmod_add && $off == 0x0UL ]] && continue
        off=${off%UL}
        [[ $anchor != dup ]]
        value=$(awk -v n="$anchor" '$8 == n && $4 == "FUNC" { print $2 }' syms)
        echo "dup at $anchor+$off"
        grep -q " $(printf '%016x' $((0x$value + off))) .* FUNC .* dup$" syms
    done < <(grep -o '\.symbol = "dw_test:[^"]*", \.offset = 0x[0-9a-f]*UL' c |
             sed 's/.*"dw_test:\([^"]*\)", .offset = \(.*\)/\1 \2/')
    (( $(grep -c '\.symbol = "dw_test:' c) == 3 ))

    # errors: a module that is not there, one without DWARF
    expect_error "<input>:1:14: semantic error" "no module no_such_mod for kernel $KVER (looked for no_such_mod.ko in /usr/lib/debug/lib/modules/$KVER and /lib/modules/$KVER" \
        -p2 -r "$KVER" -e 'probe module("no_such_mod").function("x") {}'
    # (without its BTF too: a module built where the headers have a vmlinux, as 6.12-rt's, has one)
    strip --strip-debug --remove-section=.BTF --remove-section=.BTF.base -o stripped.ko "$K"
    expect_error "<input>:1:14: semantic error" "module file $PWD/stripped.ko has no DWARF debuginfo" \
        -p2 -r "$KVER" -e "probe module(\"$PWD/stripped.ko\").function(\"x\") {}"
    expect_error "<input>:1:14: semantic error" "module file $PWD/none.ko: No such file or directory" \
        -p2 -r "$KVER" -e "probe module(\"$PWD/none.ko\").function(\"x\") {}"
    expect_error "<input>:1:$((27 + ${#K})): semantic error" "no function 'nothere' in the debuginfo of dw_test ($K)" \
        -p2 -r "$KVER" -e "probe $M.function(\"nothere\") {}"
}
