# Target variables in the guest: $count in vfs_read, $return and @entry in .return, $file$ / $$parms, @cast, read faults as script errors; every documented value of stap_testmod
# Used by tests/run (issue 7): DWARF locations at the probe's pc, member chains, pretty printing, kretprobe entry data.
# The stap_testmod part (tests/kmod/README.md has the values): integers of every size and sign, stack
# arguments, pointers, enums, structs (by pointer and by value in a register), unions, bit fields,
# arrays, .return values and @entry, inline instances, bad pointers, locals at a statement.

# Rerun as btf/dwarf-vars (FROM_BTF=1, tests/run's btf_cases): the kernel's DWARF hidden, the vmlinux probes typed
# from BTF must print the same; the test modules keep their own DWARF; @var of a kernel global (no address or type
# in BTF) is refused naming the -dbg package.

timeout_s=180
btf_rerun=1

have_vmlinux() { [[ -n ${FROM_BTF:-} || -e /usr/lib/debug/boot/vmlinux-$KVER ]]; }

build() {
    have_vmlinux || { echo "no /usr/lib/debug/boot/vmlinux-$KVER" >SKIP; return 0; }
    # $count in a register at vfs_read's entry; dd bs=1 reads one byte at a time. In the same module (t_dvcount,
    # its lines "dd N" apart from the others): .return: $return, @entry($count), $count (implicitly its value
    # at entry), $$return, $$parms at entry
    $STAP -v -p4 -m t_dvcount -e '
probe kernel.function("vfs_read") { if (execname()=="dd") printf("%s %d\n", execname(), $count) }
probe kernel.function("vfs_read").return {
    if (execname() == "dd")
        printf("%d %d %d %s|%s\n", $return, @entry($count), $count, $$return, $$parms)
}' >/dev/null 2>count.err
    local from=DWARF
    [[ -z ${FROM_BTF:-} ]] || from=BTF
    grep -q "^kernel.function(\"vfs_read\"): 1 site typed from $from " count.err || { cat count.err; return 1; }
    # pretty printers and member chains on a struct file; @cast of the current task
    $STAP -p4 -m t_dvpretty -e '
probe kernel.function("vfs_read") {
    if (execname() != "dd" || $count != 1) next   # the reads of /dev/zero, not of libc
    println($file$)
    println($file->f_path$$)
    println($$parms)
    printf("pos %d mode %d\n", $file->f_pos, ($file->f_mode & 1) != 0)
    printf("name %s\n", kernel_string($file->f_path->dentry->d_name->name))
    printf("iname %s\n", kernel_string($file->f_path->dentry->d_iname))
    printf("cast %d\n", @cast(task_current(), "task_struct")->pid == pid())
    printf("comm %s\n", kernel_string(@cast(task_current(), "task_struct", "kernel<linux/sched.h>")->comm))
    printf("addr %d\n", &$file->f_pos - $file == &@cast(0, "file")->f_pos)
    printf("defined %d %d %d\n", @defined($file->f_pos), @defined($file->no_such_member), @choose_defined($nope, 42))
    exit()
}' >/dev/null
    # a bad kernel pointer: the read faults, the error names the operator; try/catch sees the message
    $STAP -p4 -m t_dvfault -e 'probe begin { println(@cast(0x10, "list_head")->next) }' >/dev/null
    $STAP -p4 -m t_dvcatch -e '
probe begin {
    try { println(@cast(0x10, "list_head")->prev) } catch (msg) { println("caught: ", msg) }
    println("still running")
    exit()
}' >/dev/null
    # a user pointer read as kernel memory in a DWARF probe
    $STAP -p4 -m t_dvuser -e '
probe kernel.function("vfs_read") { if (execname() == "dd") println($buf[0]) }' >/dev/null
    # a global through KASLR: compared with /proc/sys/kernel/threads-max in the guest
    local global='probe begin { println(@var("max_threads@kernel/fork.c")); exit() }'
    if [[ -n ${FROM_BTF:-} ]]; then
        not $STAP -p4 -m t_dvglobal -e "$global" 2>global.err
        grep -q "^<input>:1:23: semantic error: .*install linux-image-$KVER-dbg" global.err || { cat global.err; return 1; }
    else
        $STAP -p4 -m t_dvglobal -e "$global" >/dev/null
    fi
    build_testmod
    build_pieces
}

# A struct passed by value in two registers (DW_OP_piece) and a small one in one register.
build_pieces() {
    mkdir -p pieces
    cat >pieces/dvpieces.c <<'C'
#include <linux/module.h>
#include <linux/moduleparam.h>
struct dv_pair { long a; long b; };
struct dv_small { int x; int y; };
static volatile long dv_sink;
static noinline __attribute__((__noipa__)) long dv_pieces(struct dv_pair p, struct dv_small s)
{
	dv_sink = p.a;
	dv_sink = p.b;
	dv_sink = s.x;
	return p.a + p.b + s.x + s.y;
}
static int go_set(const char *val, const struct kernel_param *kp)
{
	struct dv_pair p = { 11, -22 };
	struct dv_small s = { 3, -4 };

	dv_sink = dv_pieces(p, s);
	return 0;
}
static const struct kernel_param_ops go_ops = { .set = go_set };
module_param_cb(go, &go_ops, NULL, 0200);
MODULE_LICENSE("GPL");
C
    echo 'obj-m := dvpieces.o' >pieces/Kbuild
    make -s -C "/lib/modules/$KVER/build" M="$PWD/pieces" modules >pieces/build.log 2>&1
    $STAP -p4 -m t_dvpieces -e '
probe module("'"$PWD"'/pieces/dvpieces.ko").function("dv_pieces") {
    printf("pair %d %d %s %s %d %d|%s|%s\n", $p->a, $p->b, $p$, $s$, $s->x, $s->y, $$parms, $$parms$)
}
probe module("'"$PWD"'/pieces/dvpieces.ko").function("dv_pieces").return { printf("sum %d %d\n", $return, $p->b) }' >/dev/null
}

# One probe per stm_* function of stap_testmod printing what tests/kmod/README.md documents.
build_testmod() {
    source "$TOP/tests/lib/testmod.sh"
    local ko line
    ko=$(testmod_build "$TOP/build/tests/testmod/$KVER")
    echo "$ko" >testmod.path
    line=$(grep -n 'STM-LINE: locals' "$(dirname "$ko")/stap_testmod.c" | cut -d: -f1)
    sed -e "s|KO|$ko|g" -e "s|LINE|$line|g" >testmod.stp <<'STP'
probe begin { printf("var %d %d\n", @var("stm_int_target@stap_testmod.c", "KO"), @var("stm_nums@stap_testmod.c", "KO")[3]) }
probe module("KO").function("stm_ints_signed") { printf("ints_signed %d %d %d %d|%s|%s\n", $sc, $ss, $si, $sll, $$parms, $$parms$) }
probe module("KO").function("stm_ints_unsigned") { printf("ints_unsigned %d %d %d %d|%s|%s\n", $uc, $us, $ui, $ull, $$parms, $$parms$) }
probe module("KO").function("stm_longs") { printf("longs %d %d %d %d|%s\n", $l, $ul, $ch, $flag, $$parms$) }
probe module("KO").function("stm_stack_args") { printf("stack %d %d %d %d %d %d %d %d|%s\n", $a1, $a2, $a3, $a4, $a5, $a6, $a7, $a8, $$parms) }
probe module("KO").function("stm_pointers") {
    printf("pointers %d %d %s %s %d %d %d %s %d\n", $ip[0], kernel_int($ip), kernel_string($str), kernel_string($buf),
           $inner->x, $inner->y, $inner->tag, $inner$, $nullstr)
    printf("pointers cast %d %d %s|%s|%s\n", @cast($vp, "stm_outer", "KO")->id, @cast($vp, "stm_outer")->in->x,
           kernel_string(@cast($vp, "struct stm_outer", "KO")->label), $str$, $buf$)
}
probe module("KO").function("stm_enum") { printf("enum %d %d|%s|%s\n", $color, $other, $$parms, $$parms$) }
probe module("KO").function("stm_struct") {
    printf("struct %d %d %d %d %d %d %d %d %d %s %s\n", $p->id, $p->in->x, $p->in->y, $p->in->tag, $p->pin->y,
           $p->arr[0]->x, $p->arr[1]->y, $p->arr[2]->tag, $p->nums[3], kernel_string($p->name), kernel_string($p->label))
    printf("struct u %d %d %d %d %d %d %d\n", $p->u->word, $p->u->halves[1], $p->u->bytes[0], $p->color,
           $p->self->self->id, $p->nothing, $p->ul)
    println("struct pp ", $p->in$, " ", $p->arr[2]$, " ", $p->bits$)
    println("struct pp ", $p->name$, " ", $p->nums$)
    println("struct top ", $p$)
    println("struct full ", $p$$)
    i = 2
    printf("struct idx %d %d %d\n", $p->arr[i]->x, $p->nums[i + 1], &$p->arr[1] - $p)
}
probe module("KO").function("stm_struct_byval") { printf("byval %d %d %d %s\n", $in->x, $in->y, $in->tag, $in$) }
probe module("KO").function("stm_union") { printf("union %d %d %d %d %s\n", $up->word, $up->halves[0], $up->halves[1], $up->bytes[3], $up$) }
probe module("KO").function("stm_bits") {
    printf("bits %d %d %d %d %d %d %d %d %d\n", $b->u3, $b->s5, $b->u1, $b->s1, $b->u12, $b->s10, $b->u40, $b->s20, $b->uc4)
}
probe module("KO").function("stm_arrays") {
    printf("arrays %d %d %d %d %d %s %d %d\n", $nums[0], $nums[1], $nums[2], $nums[3], $arr[2]->x, $arr[1]$, $n, $nums[$n])
}
probe module("KO").function("stm_return").return { printf("return %d %d %d %s\n", $return, @entry($x), $x, $$return) }
probe module("KO").function("stm_return_neg").return { printf("return_neg %d %d\n", $return, @entry($x * 2)) }
probe module("KO").function("stm_return_ptr").return { printf("return_ptr %d %d\n", $return->id, $return->in->x) }
probe module("KO").function("stm_return_str").return { printf("return_str %s\n", kernel_string($return)) }
probe module("KO").function("stm_inline_sum") { printf("inline %d %d\n", $a, $b) }
probe module("KO").function("stm_inline_site_a"), module("KO").function("stm_inline_site_b") { printf("site %d %d\n", $v, $w) }
probe module("KO").function("stm_bad_ptr") {
    printf("bad %d %x %d\n", $bad, $badstr, $null_int)
    try { println($bad->id) } catch (m) { println("caught ", m) }
    try { println($bad->self->id) } catch (m) { println("caught ", m) }
    try { println($null_int[0]) } catch (m) { println("caught ", m) }
    try { println($badstr[0]) } catch (m) { println("caught ", m) }
    try { println(kernel_string($badstr)) } catch (m) { println("caught ", m) }
    println("bad pp ", $bad$)
}
probe module("KO").statement("stm_locals@stap_testmod.c:LINE") {
    printf("locals %d %d %d %s %s %s|%s|%d\n", $sq, $total, $small, kernel_string($msg), kernel_string($word), $pt$,
           $$locals, @defined($n))
}
probe module("KO").function("stm_locals").return { printf("locals_ret %d\n", $return) }
probe module("KO").function("stm_locals_use") {
    printf("locals_use %d %d %d %s %d\n", $sq, $total, $small, kernel_string($word), $pt->y)
}
probe module("KO").function("stm_strings") {
    printf("strings %s|%s|%s|%s|%s|%s\n", kernel_string($s), kernel_string($arr), kernel_string($empty),
           kernel_string($p->name), $s$, $empty$)
}
STP
    $STAP -p4 -m t_dvtestmod testmod.stp >/dev/null
    # guru mode: a module global written before stm_pointers reads it, a register parameter at entry
    sed -e "s|KO|$ko|g" >guru.stp <<'STP'
probe module("KO").function("stm_ints_signed") { @var("stm_int_target@stap_testmod.c", "KO") = 4343 }
probe module("KO").function("stm_pointers") { printf("ip %d\n", $ip[0]) }
probe module("KO").function("stm_return") { $x = 20 }
probe module("KO").function("stm_return").return { printf("return %d\n", $return) }
STP
    $STAP -p4 -g -m t_dvguru guru.stp >/dev/null
}

guest() {
    if [[ -e SKIP ]]; then
        echo "skipped: $(cat SKIP)"
        return 0
    fi
    staprun -c 'dd if=/dev/zero of=/dev/null bs=1 count=5 2>/dev/null' t_dvcount.ko >count.out
    staprun -c 'dd if=/dev/zero of=/dev/null bs=1 count=5 2>/dev/null' t_dvpretty.ko >pretty.out
    not staprun t_dvfault.ko >fault.out 2>fault.err
    staprun t_dvcatch.ko >catch.out 2>catch.err
    not staprun -c 'dd if=/dev/zero of=/dev/null bs=1 count=5 2>/dev/null' t_dvuser.ko >user.out 2>user.err
    [[ ! -e t_dvglobal.ko ]] || staprun t_dvglobal.ko >global.out
    cat /proc/sys/kernel/threads-max >threads-max
    insmod "$(cat testmod.path)"
    staprun -c 'echo 1 >/sys/module/stap_testmod/parameters/run' t_dvtestmod.ko >testmod.out 2>testmod.err
    rmmod stap_testmod
    insmod "$(cat testmod.path)"
    staprun -c 'echo 1 >/sys/module/stap_testmod/parameters/run' t_dvguru.ko >guru.out 2>guru.err
    rmmod stap_testmod
    insmod pieces/dvpieces.ko
    staprun -c 'echo 1 >/sys/module/dvpieces/parameters/go' t_dvpieces.ko >pieces.out 2>pieces.err
    rmmod dvpieces
    # the modules are gone after each error and the kernel is fine: a last run works
    staprun -c 'dd if=/dev/zero of=/dev/null bs=1 count=5 2>/dev/null' t_dvcount.ko >again.out
}

# Each line of stap_testmod's expected output (tests/kmod/README.md) must be printed exactly once.
TESTMOD_EXPECTED=$(cat <<'EOF'
var 4242 -4
ints_signed -5 -300 -70000 -5000000000|sc=0xfffffffffffffffb ss=0xfffffffffffffed4 si=0xfffffffffffeee90 sll=0xfffffffed5fa0e00|sc='\373' ss=-300 si=-70000 sll=-5000000000
ints_unsigned 250 65000 4000000000 -446744073709551616|uc=0xfa us=0xfde8 ui=0xee6b2800 ull=0xf9ccd8a1c5080000|uc='\372' us=65000 ui=4000000000 ull=18000000000000000000
longs -9000000000 -81985529216486896 65 1|l=-9000000000 ul=18364758544493064720 ch='A' flag=1
stack 101 102 103 104 105 106 107 108|a1=0x65 a2=0x66 a3=0x67 a4=0x68 a5=0x69 a6=0x6a a7=0x6b a8=0x6c
pointers 4242 4242 hello from stap_testmod buffer-contents 7 -8 113 {.x=7, .y=-8, .tag='q'} 0
pointers cast -1234567890123 7 the label|"hello from stap_testmod"|"buffer-contents"
enum 4 1|color=0x4 other=0x1|color=4 other=1
struct -1234567890123 7 -8 113 -21 100 -202 122 -4000 testmod-name the label
struct u 287454020 4386 68 2 -1234567890123 0 -81985529216486896
struct pp {.x=7, .y=-8, .tag='q'} {.x=300, .y=303, .tag='z'} {.u3=5, .s5=-7, .u1=1, .s1=-1, .u12=2748, .s10=-300, .u40=78187493530, .s20=-400000, .uc4=9}
struct pp "testmod-name" [1000, ...]
struct idx 300 -4000 32
byval 30 31 99 {.x=30, .y=31, .tag='c'}
union 2712847316 50132 41394 161 {.word=2712847316, .halves=[...], .bytes=[...]}
bits 5 -7 1 -1 2748 -300 78187493530 -400000 9
arrays 1 -2 3 -4 30 {.x=20, .y=-21, .tag='b'} 3 -4
return 42 17 17 return=0x2a
return_neg -77 154
return_ptr -1234567890123 7
return_str hello from stap_testmod
inline 3 4
inline 5 6
site 3 4
site 5 6
bad 16 dead000000000000 0
caught read fault at 0x10
caught read fault at 0x88
caught read fault at 0x0
caught read fault at 0xdead000000000000
caught kernel string copy fault at 0xdead000000000000
bad pp ERROR
locals_ret 398
locals_use 25 15 255 local -5
strings hello from stap_testmod|testmod-name||testmod-name|"hello from stap_testmod"|""
EOF
)

check() {
    if [[ -e SKIP ]]; then
        grep -q '^skipped: ' out
        return 0
    fi
    [[ $(cat rc) == 0 ]]
    cat count.out
    (( $(grep -cx 'dd 1' count.out) >= 5 ))
    (( $(grep -cx 'dd 1' again.out) >= 5 ))
    # (t_dvcount's .return probe)
    (( $(grep -cE '^1 1 1 return=0x1\|file=0x[0-9a-f]+ buf=0x[0-9a-f]+ count=0x1 pos=0x[0-9a-f]+$' count.out) >= 5 ))
    cat pretty.out
    # struct file: members in order, nested structs and (anonymous) unions as {...}, pointers as %p;
    # 6.12 reordered struct file (f_count, f_lock and f_mode first, f_path after f_cred)
    case $KVER in
    6.1.*) grep -qE '^\{<union>=\{\.\.\.\}, \.f_path=\{\.\.\.\}, \.f_inode=0x[0-9a-f]{16}, \.f_op=0x[0-9a-f]{16}, \.f_lock=\{\.\.\.\}, .*, \.f_pos=0, .*, \.f_ep=0x0{16}, .*\}$' pretty.out ;;
    *) grep -qE '^\{\.f_count=\{\.\.\.\}, \.f_lock=\{\.\.\.\}, \.f_mode=[0-9]+, \.f_op=0x[0-9a-f]{16}, .*, \.f_inode=0x[0-9a-f]{16}, .*, \.f_path=\{\.\.\.\}, <union>=\{\.\.\.\}, \.f_pos=0, .*, \.f_ep=0x0{16}, .*\}$' pretty.out ;;
    esac
    grep -qE '^\{\.mnt=0x[0-9a-f]{16}, \.dentry=0x[0-9a-f]{16}\}$' pretty.out
    grep -qE '^file=0x[0-9a-f]+ buf=0x[0-9a-f]+ count=0x1 pos=0x[0-9a-f]+$' pretty.out
    grep -qx 'pos 0 mode 1' pretty.out
    grep -qx 'name zero' pretty.out
    grep -qx 'iname zero' pretty.out
    grep -qx 'cast 1' pretty.out
    grep -qx 'comm dd' pretty.out
    grep -qx 'addr 1' pretty.out
    grep -qx 'defined 1 0 42' pretty.out
    cat fault.err
    grep -qx "ERROR: read fault at 0x10 near operator '->' at <input>:1:47" fault.err
    cat catch.out
    grep -qx 'caught: read fault at 0x18' catch.out
    grep -qx 'still running' catch.out
    cat user.err
    grep -qE "^ERROR: read fault at 0x[0-9a-f]+ near operator '\[' at <input>:2:73$" user.err
    # KASLR: the global's run-time address
    if [[ -z ${FROM_BTF:-} ]]; then
        echo "max_threads $(cat global.out), threads-max $(cat threads-max)"
        [[ $(cat global.out) == "$(cat threads-max)" ]]
    fi
    check_testmod
    # a struct in two registers (pieces), one in a register: members are parts of them
    cat pieces.out pieces.err
    [[ $(cat pieces.out) == $'pair 11 -22 {.a=11, .b=-22} {.x=3, .y=-4} 3 -4|p={...} s={...}|p={.a=11, .b=-22} s={.x=3, .y=-4}\nsum -12 -22' ]]
}

check_testmod() {
    cat testmod.out testmod.err
    [[ ! -s testmod.err ]]
    local l
    while IFS= read -r l; do
        [[ $(grep -cFx -- "$l" testmod.out) == 1 ]] || { echo "expected once: $l"; return 1; }
    done <<<"$TESTMOD_EXPECTED"
    # one level: nested structs and arrays elided, pointers as %p; two levels: everything
    grep -qxE 'struct top \{\.id=-1234567890123, \.in=\{\.\.\.\}, \.pin=0x[0-9a-f]{16}, \.arr=\[\.\.\.\], \.nums=\[\.\.\.\], \.name=\[\.\.\.\], \.label="the label", \.u=\{\.\.\.\}, \.bits=\{\.\.\.\}, \.color=2, \.self=0x[0-9a-f]{16}, \.nothing=0x0{16}, \.ul=18364758544493064720\}' testmod.out
    grep -qxE "struct full \{\.id=-1234567890123, \.in=\{\.x=7, \.y=-8, \.tag='q'\}, \.pin=0x[0-9a-f]{16}, \.arr=\[\{\.x=100, \.y=101, \.tag='x'\}, \.\.\.\], \.nums=\[1000, \.\.\.\], \.name=\"testmod-name\", \.label=\"the label\", \.u=\{\.word=287454020, \.halves=\[13124, \.\.\.\], \.bytes=.*\}, \.bits=\{\.u3=5, \.s5=-7, \.u1=1, \.s1=-1, \.u12=2748, \.s10=-300, \.u40=78187493530, \.s20=-400000, \.uc4=9\}, \.color=2, \.self=0x[0-9a-f]{16}, \.nothing=0x0{16}, \.ul=18364758544493064720\}" testmod.out
    # the statement in stm_locals: registers, frame slots, a module address (DW_OP_addr); n is only an entry value
    # guru mode: what was written is what the module saw (stm_return(x) is 2x + 8)
    cat guru.out guru.err
    [[ $(cat guru.out) == $'ip 4343\nreturn 48' && ! -s guru.err ]]
    grep -qxE "locals 25 15 255 hello from stap_testmod local \{\.x=5, \.y=-5, \.tag='L'\}\|pt=\{\.\.\.\} word=\[\.\.\.\] sq=0x19 total=0xf small=0xff msg=0xffff[0-9a-f]+\|0" testmod.out
}
