# stap_testmod (tests/kmod/testmod): params located at entry by its DWARF, the documented values (kprobe events), clean load, trigger, unload
# Used by tests/run (guest/testmod), for the DWARF probe tests that use the module (issue 7); values: tests/kmod/README.md.
#
# build(): tests/lib/testmod.sh builds the module; tests/kmod/testmod/entry-locs.c reads its DWARF:
# every stm_* parameter must have a location at the function's entry pc, and the locals at the
# "STM-LINE: locals" line theirs. From that it writes kprobe events (the kernel's own tracer,
# independent of stap) that fetch the values from the registers and stack slots the DWARF names.
# guest(): insmod, the events on, one write to parameters/run, the events off, more writes, rmmod.
# check(): the traced values, in call order, are exactly those of tests/kmod/README.md.

timeout_s=120

# the functions entry-locs must list, in address order (the order of the source), with their
# parameters; inlined instances as NAME@inline#N
EXPECTED_FUNCS="stm_ints_signed(sc,ss,si,sll) stm_ints_unsigned(uc,us,ui,ull) stm_longs(l,ul,ch,flag)
stm_stack_args(a1,a2,a3,a4,a5,a6,a7,a8) stm_pointers(ip,str,vp,buf,inner,nullstr) stm_enum(color,other)
stm_struct(p) stm_struct_byval(in) stm_union(up) stm_bits(b) stm_arrays(nums,arr,n) stm_return(x)
stm_return_neg(x) stm_return_ptr() stm_return_str() stm_inline_site_a(v,w) stm_inline_sum@inline#1(b,a)
stm_inline_site_b(v,w) stm_inline_sum@inline#2(b,a) stm_bad_ptr(bad,badstr,null_int)
stm_locals_use(sq,total,small,msg,word,pt) stm_locals(n) stm_strings(s,arr,empty,p)"

# reg KIND: the kprobe-events register of a DWARF register location (reg5 -> %di)
reg() {
    local names=(ax dx cx bx si di bp sp r8 r9 r10 r11 r12 r13 r14 r15)
    [[ $1 =~ ^reg([0-9]+)$ ]] && (( BASH_REMATCH[1] < 16 )) || { echo "not a register: $1" >&2; return 1; }
    echo "%${names[BASH_REMATCH[1]]}"
}

# kind FILE FUNC VAR: the location kind entry-locs printed for VAR of FUNC
kind() { awk -v f="$2" -v v="$3" '$1 == f && $2 == v { print $3 }' "$1"; }

build() {
    source "$TOP/tests/lib/testmod.sh"
    testmod_build mod >/dev/null
    cc -std=c11 -Wall -Wextra -Werror -O2 -o entry-locs "$TOP/tests/kmod/testmod/entry-locs.c" -ldw -lelf

    # every parameter has a location at its function's entry pc (entry-locs exits 1 otherwise)
    ./entry-locs mod/stap_testmod.ko stm_ >entry.txt
    local funcs
    funcs=$(awk '$1 == "PC" { if (f != "") print f ")"; f = $2 "("; sep = ""; next }
                 { f = f sep $2; sep = "," } END { print f ")" }' entry.txt | paste -sd' ')
    [[ $funcs == "$(echo $EXPECTED_FUNCS)" ]] || { echo "functions: $funcs"; return 1; }
    # the stack parameters are where the ABI puts them: just above the return address (CFA + 0, + 8)
    [[ $(kind entry.txt stm_stack_args a7) == fbreg+0 && $(kind entry.txt stm_stack_args a8) == fbreg+8 ]]

    # the locals at the marked line: one address; registers, frame slots, a constant address
    local line
    line=$(grep -n 'STM-LINE: locals' mod/stap_testmod.c | cut -d: -f1)
    [[ $(grep -c 'STM-LINE: locals' mod/stap_testmod.c) == 1 ]]
    ./entry-locs --at "$line" mod/stap_testmod.ko stm_locals >locals.txt
    grep -q '^PC stm_locals+0x[0-9a-f]* (1 addresses)$' locals.txt
    [[ $(kind locals.txt stm_locals pt) == fbreg-* && $(kind locals.txt stm_locals word) == fbreg-* ]]
    [[ $(kind locals.txt stm_locals msg) == addr ]]

    # kprobe events reading the values where the DWARF says they are
    local in1 in2 at
    in1=$(awk '$1 == "PC" && $2 == "stm_inline_sum@inline#1" { print $3 }' entry.txt)
    in2=$(awk '$1 == "PC" && $2 == "stm_inline_sum@inline#2" { print $3 }' entry.txt)
    at=$(awk '$1 == "PC" { print $2 }' locals.txt)
    [[ $in1 == stm_inline_site_a+0x* && $in2 == stm_inline_site_b+0x* && $at == stm_locals+0x* ]]
    local M=stap_testmod
    cat >events.txt <<EOF
p:stm/ints_signed $M:stm_ints_signed sc=%di:s8 ss=%si:s16 si=%dx:s32 sll=%cx:s64
p:stm/ints_unsigned $M:stm_ints_unsigned uc=%di:u8 us=%si:u16 ui=%dx:u32 ull=%cx:u64
p:stm/longs $M:stm_longs l=%di:s64 ul=%si:x64 ch=%dx:s8 flag=%cx:u8
p:stm/stack_args $M:stm_stack_args a1=%di:s64 a6=%r9:s64 a7=+8(%sp):s64 a8=+16(%sp):s64
p:stm/pointers $M:stm_pointers ip=+0(%di):s32 str=+0(%si):string buf=+0(%cx):string inner_x=+0(%r8):s32 inner_tag=+6(%r8):u8 nullstr=%r9:x64
p:stm/enum $M:stm_enum color=%di:u32 other=%si:u32
p:stm/struct $M:stm_struct id=+0(%di):s64 in_x=+8(%di):s32 in_y=+12(%di):s16 in_tag=+14(%di):u8 pin_y=+4(+16(%di)):s16 arr1_y=+36(%di):s16 nums3=+60(%di):s32 name=+64(%di):string label=+0(+80(%di)):string word=+88(%di):x32 color=+112(%di):u32 self_id=+0(+120(+120(%di))):s64 nothing=+128(%di):x64 ul=+136(%di):x64
p:stm/byval $M:stm_struct_byval x=%di:b32@0/64 y=%di:b16@32/64 tag=%di:b8@48/64
p:stm/union $M:stm_union word=+0(%di):x32 half1=+2(%di):x16 byte3=+3(%di):x8
p:stm/bits $M:stm_bits u3=+0(%di):b3@0/32 s5raw=+0(%di):b5@3/32 u1=+0(%di):b1@8/32 s1raw=+0(%di):b1@9/32 u12=+0(%di):b12@10/32 s10raw=+0(%di):b10@22/32 u40=+8(%di):b40@0/64 s20raw=+8(%di):b20@40/64 uc4=+15(%di):b4@4/8
p:stm/arrays $M:stm_arrays nums0=+0(%di):s32 nums3=+12(%di):s32 arr2_x=+16(%si):s32 arr2_tag=+22(%si):u8 n=%dx:s32
r:stm/return $M:stm_return ret=\$retval:s32
r:stm/return_neg $M:stm_return_neg ret=\$retval:s64
r:stm/return_ptr $M:stm_return_ptr id=+0(\$retval):s64
r:stm/return_str $M:stm_return_str s=+0(\$retval):string
p:stm/inline1 $M:$in1 a=$(reg "$(kind entry.txt stm_inline_sum@inline#1 a)"):s64 b=$(reg "$(kind entry.txt stm_inline_sum@inline#1 b)"):s64
p:stm/inline2 $M:$in2 a=$(reg "$(kind entry.txt stm_inline_sum@inline#2 a)"):s64 b=$(reg "$(kind entry.txt stm_inline_sum@inline#2 b)"):s64
p:stm/bad_ptr $M:stm_bad_ptr bad=%di:x64 badstr=%si:x64 null_int=%dx:x64
p:stm/locals $M:$at sq=$(reg "$(kind locals.txt stm_locals sq)"):s32 total=$(reg "$(kind locals.txt stm_locals total)"):s64 small=$(reg "$(kind locals.txt stm_locals small)"):u8
p:stm/strings $M:stm_strings s=+0(%di):string arr=+0(%si):string empty=+0(%dx):string p_name=+64(%cx):string
EOF
}

guest() {
    local P=/sys/module/stap_testmod/parameters T=/sys/kernel/tracing line
    [[ -e $T/kprobe_events ]] || T=/sys/kernel/debug/tracing
    not loaded stap_testmod
    insmod mod/stap_testmod.ko
    loaded stap_testmod
    cat $P/runs >runs.0
    cat $P/checksum >checksum.0

    echo >$T/trace
    while IFS= read -r line; do
        echo "$line" >>$T/kprobe_events || { echo "kprobe_events refused: $line" >&2; return 1; }
    done <events.txt
    echo 1 >$T/events/stm/enable
    echo 1 >$P/run
    echo 0 >$T/events/stm/enable
    cat $T/trace >trace.txt
    echo >$T/kprobe_events

    cat $P/runs >runs.1
    cat $P/checksum >checksum.1
    echo 3 >$P/run
    cat $P/runs >runs.4
    # out of range: refused, nothing runs
    not sh -c "echo 0 >$P/run" 2>/dev/null
    not sh -c "echo 1001 >$P/run" 2>/dev/null
    not sh -c "echo x >$P/run" 2>/dev/null
    cat $P/runs >runs.4b
    rmmod stap_testmod
    not loaded stap_testmod
}

check() {
    [[ $(cat rc) == 0 ]]
    [[ $(cat runs.0) == 0 && $(cat checksum.0) == 0 ]]
    [[ $(cat runs.1) == 1 && $(cat runs.4) == 4 && $(cat runs.4b) == 4 ]]
    [[ $(cat checksum.1) == 17999997523577070663 ]]
    # "task-pid [cpu] flags ts: EVENT: (where) ARGS" -> "EVENT: ARGS"
    grep -v '^#' trace.txt | sed -E 's/^.* ([a-z0-9_]+): \([^)]*\) /\1: /' >values.txt
    diff -u - values.txt <<'EOF'
ints_signed: sc=-5 ss=-300 si=-70000 sll=-5000000000
ints_unsigned: uc=250 us=65000 ui=4000000000 ull=18000000000000000000
longs: l=-9000000000 ul=0xfedcba9876543210 ch=65 flag=1
stack_args: a1=101 a6=106 a7=107 a8=108
pointers: ip=4242 str="hello from stap_testmod" buf="buffer-contents" inner_x=7 inner_tag=113 nullstr=0x0
enum: color=4 other=1
struct: id=-1234567890123 in_x=7 in_y=-8 in_tag=113 pin_y=-21 arr1_y=-202 nums3=-4000 name="testmod-name" label="the label" word=0x11223344 color=2 self_id=-1234567890123 nothing=0x0 ul=0xfedcba9876543210
byval: x=30 y=31 tag=99
union: word=0xa1b2c3d4 half1=0xa1b2 byte3=0xa1
bits: u3=5 s5raw=25 u1=1 s1raw=1 u12=2748 s10raw=724 u40=78187493530 s20raw=648576 uc4=9
arrays: nums0=1 nums3=-4 arr2_x=30 arr2_tag=99 n=3
return: ret=42
return_neg: ret=-77
return_ptr: id=-1234567890123
return_str: s="hello from stap_testmod"
inline1: a=3 b=4
inline2: a=5 b=6
bad_ptr: bad=0x10 badstr=0xdead000000000000 null_int=0x0
locals: sq=25 total=15 small=255
strings: s="hello from stap_testmod" arr="testmod-name" empty="" p_name="testmod-name"
EOF
}
