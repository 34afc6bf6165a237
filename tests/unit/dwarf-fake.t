# DWARF probe points on a small fake kernel (stap -r TREE, TREE/vmlinux built here with -g): no debuginfo package needed
# Used by tests/run (issue 7): index build/cache/reload, inline instances, anchors (own symbol, _stext), refusals, .exported, statements.

# make_tree: tree/ with a release, a Makefile and a vmlinux with DWARF, symbols the provider looks for
# (_stext, __ksymtab_*, the kprobe blacklist bounds) and code in sections kprobes refuse.
make_tree() {
    mkdir -p tree/include/config
    echo 9.9.9-fake >tree/include/config/kernel.release
    echo 'all:' >tree/Makefile
    # first in .text, as in a kernel
    cat >s.c <<'EOF'
volatile int s_counter;
void _stext(void) { s_counter++; }
void _start(void) { s_counter++; }
EOF
    cat >a.c <<'EOF'
static int counter;
static inline int helper(int x)
{
	return x * 3 + counter;
}
int fake_func(int a, int b)
{
	int r = helper(a);
	r += b;
	counter++;
	return r;
}
__attribute__((noinline)) static int other_func(int z)
{
	return helper(z) - 1;
}
__attribute__((noinline)) static int dup(int v) { return v + counter; }
int call_a(int q) { return other_func(q) + dup(q); }
__attribute__((noinline)) void bl_func(void) { counter--; }
__attribute__((noinline, section(".noinstr.text"))) void entry_func(void) { counter++; }
__attribute__((noinline, section(".init.text"))) void init_func(void) { counter++; }
const int __ksymtab_fake_func = 0;
asm(".pushsection .data.kbl,\"aw\"\n.globl __start_kprobe_blacklist\n__start_kprobe_blacklist:\n"
    ".quad bl_func\n.globl __stop_kprobe_blacklist\n__stop_kprobe_blacklist:\n.popsection");
EOF
    cat >b.c <<'EOF'
extern int counter2;
__attribute__((noinline)) static int dup(int v) { return v * 2; }
int call_b(int q) { return dup(q); }
EOF
    cc -g -O2 -nostdlib -static -Wl,--build-id -o tree/vmlinux s.c a.c b.c
}

sites() {
    "$STAP" -p2 -r "$PWD/tree" -e "probe $1 {}" | sed -n 's@ /\* <- .*@@p'
}

run() {
    source "$TOP/tests/lib/assert.sh"
    export SYSTEMTAP_DIR=$PWD/stapdir
    # the index is what is tested here: exact names cold would be found without it (dwarf-exactname.t)
    export STAP_DWARF_FASTPATH=0
    rm -rf stapdir
    make_tree
    local id T=$PWD/tree
    id=$(readelf -n tree/vmlinux | sed -n 's/^ *Build ID: //p')

    # the index: built and saved under the build id, then loaded; a damaged file is rebuilt
    "$STAP" -v -p2 -r "$T" -e 'probe kernel.function("fake_func") {}' >out 2>err
    grep -q "^DWARF index of $T/vmlinux: 13 functions, .* built and saved to $PWD/stapdir/cache/dwarf/$id.idx" err
    "$STAP" -v -p2 -r "$T" -e 'probe kernel.function("fake_func") {}' >out 2>err
    grep -q "^DWARF index of $T/vmlinux: 13 functions, .* loaded from $PWD/stapdir/cache/dwarf/$id.idx" err
    truncate -s 100 "stapdir/cache/dwarf/$id.idx"
    "$STAP" -v -p2 -r "$T" -e 'probe kernel.function("fake_func") {}' >out 2>err
    grep -q "built and saved to" err
    "$STAP" -v -p2 --disable-cache -r "$T" -e 'probe kernel.function("fake_func") {}' >out 2>err
    grep -q "built in memory" err

    # names with their file and line; helper only inlined (twice); every function once with -l
    [[ $(sites 'kernel.function("fake_func")') == 'kernel.function("fake_func@a.c:6")' ]]
    [[ $(sites 'kernel.function("helper")') == $'kernel.function("helper@a.c:2")\nkernel.function("helper@a.c:2")' ]]
    [[ $(sites 'kernel.function("helper").inline') == $'kernel.function("helper@a.c:2").inline\nkernel.function("helper@a.c:2").inline' ]]
    [[ $(sites 'kernel.function("*_func").call' | tr '\n' ' ') == 'kernel.function("fake_func@a.c:6").call kernel.function("other_func@a.c:13").call ' ]]
    [[ $("$STAP" -r "$T" -l 'kernel.function("*")' | tr '\n' ' ') == 'kernel.function("_stext@s.c:2") kernel.function("call_a@a.c:18") kernel.function("call_b@b.c:3") kernel.function("dup@a.c:17") kernel.function("dup@b.c:2") kernel.function("fake_func@a.c:6") kernel.function("helper@a.c:2") kernel.function("other_func@a.c:13") ' ]]
    [[ $(sites 'kernel.function("dup@b.c")') == 'kernel.function("dup@b.c:2")' ]]
    [[ $(sites 'kernel.function("*@b.c")' | tr '\n' ' ') == 'kernel.function("call_b@b.c:3") kernel.function("dup@b.c:2") ' ]]
    [[ $(sites 'kernel.function("*@a.c:15")') == 'kernel.function("other_func@a.c:13")' ]]
    [[ $(sites 'kernel.function("*_func").exported') == 'kernel.function("fake_func@a.c:6").exported' ]]

    # where the kprobes go: its own symbol; an inline instance at its call's address; a name two
    # functions share, from _stext; the instance at other_func's start is a probe of its own
    local addr stext
    sym() { readelf -sW tree/vmlinux | awk -v n="$1" '$8 == n && $4 == "FUNC" { print $2; exit }'; }
    "$STAP" -p3 -r "$T" -e 'probe kernel.function("fake_func"), kernel.function("dup"), kernel.function("other_func"), kernel.function("helper") {}' >c
    grep -q '\.symbol = "fake_func", \.offset = 0x0UL, \.entry = ' c
    stext=$(sym _stext)
    for addr in $(readelf -sW tree/vmlinux | awk '$8 == "dup" { print $2 }'); do
        grep -q "\.symbol = \"_stext\", \.offset = $(printf '0x%x' $((0x$addr - 0x$stext)))UL" c
    done
    (( $(grep -c '\.symbol = "other_func", \.offset = 0x0UL' c) == 2 ))
    (( $(grep -c '\.symbol = ' c) == 6 ))
    # no build id check for a kernel that is not the running one, but the module records it
    grep -q "^MODULE_INFO(stap_kernel_build_id, \"$id\");" c

    # a function whose DIE has no code (GCC leaves _start's out here), and suffixes that match nothing
    expect_error "<input>:1:23: semantic error" "'_start' has no code in the debuginfo" \
        -p2 -r "$T" -e 'probe kernel.function("_start") {}'
    expect_error "<input>:1:23: semantic error" "'helper' has no out-of-line code (it is always inlined: use .inline)" \
        -p2 -r "$T" -e 'probe kernel.function("helper").call {}'
    expect_error "<input>:1:23: semantic error" "'fake_func' is never inlined: drop .inline" \
        -p2 -r "$T" -e 'probe kernel.function("fake_func").inline {}'
    expect_error "<input>:1:23: semantic error" "'other_func' is not exported (EXPORT_SYMBOL)" \
        -p2 -r "$T" -e 'probe kernel.function("other_func").exported {}'

    # refused by kprobes: left out with a -v note, an error when nothing is left
    expect_error "<input>:1:23: semantic error" 'kernel.function("bl_func"): no location kprobes can probe: kernel.function("bl_func@a.c:19") at 0x' \
        -p2 -r "$T" -e 'probe kernel.function("bl_func") {}'
    grep -q ': blacklisted for kprobes (NOKPROBE_SYMBOL)$' stderr
    expect_error "<input>:1:23: semantic error" 'kernel.function("entry_func"): no location kprobes can probe: ' \
        -p2 -r "$T" -e 'probe kernel.function("entry_func") {}'
    grep -q ': in .noinstr.text (noinstr code)$' stderr
    expect_error "<input>:1:23: semantic error" 'kernel.function("init_func"): no location kprobes can probe: ' \
        -p2 -r "$T" -e 'probe kernel.function("init_func") {}'
    grep -q ': in __init code (.init.text), freed after boot$' stderr
    "$STAP" -v -p2 -r "$T" -e 'probe kernel.function("*_func") {}' >out 2>err
    [[ $(grep -c '^Skipping kernel.function("' err) == 3 ]]
    [[ $(grep -c '^kernel.function' out) == 2 ]]

    # statements: a line of fake_func, +offset from its declaration, a line with no code
    local line
    line=$(sites 'kernel.statement("fake_func@a.c:*")' | sed -n 's/.*a\.c:\([0-9]*\)").*/\1/p' | sort -n | tail -n 1)
    (( line > 6 && line <= 12 ))
    [[ $(sites "kernel.statement(\"fake_func@a.c:$line\")") == "kernel.statement(\"fake_func@a.c:$line\")" ]]
    [[ $(sites "kernel.statement(\"fake_func@a.c+$((line - 6))\")") == "kernel.statement(\"fake_func@a.c:$line\")" ]]
    expect_error "<input>:1:24: semantic error" "no code for line 1 of a.c in fake_func (nearest lines with code: " \
        -p2 -r "$T" -e 'probe kernel.statement("fake_func@a.c:1") {}'

    # -L: parameters, then locals; an inline instance lists its function's parameters
    [[ $("$STAP" -r "$T" -L 'kernel.function("fake_func")' | grep -o ' \$[a-z_0-9]*:' | tr -d '\n') == ' $a: $b: $r:' ]]
    [[ $("$STAP" -r "$T" -L 'kernel.function("helper")' | grep -o ' \$[a-z_0-9]*:' | tr -d '\n') == ' $x:' ]]
}
