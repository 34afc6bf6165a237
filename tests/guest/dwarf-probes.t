# DWARF probes fire: kernel.function/.return/.statement counts agree with a kprobe, @entry data path, vfs_* hits per function, an inline instance, a module function
# Used by tests/run (issue 7): kernel debuginfo resolution, kprobes at symbol+offset, kretprobes, module probes.

timeout_s=150

# Without the kernel's debuginfo there is nothing to resolve: every part passes with a note in out.
have_vmlinux() { [[ -e /usr/lib/debug/boot/vmlinux-$KVER ]]; }

# A module with a function the test calls: writing its "poke" parameter runs tmod_poke(value).
write_kmod() {
    mkdir -p kmod
    cat >kmod/dwtmod.c <<'EOF'
#include <linux/module.h>
#include <linux/moduleparam.h>
static int pokes;
static noinline int tmod_poke(int v) { pokes += v; return pokes; }
static int poke_set(const char *val, const struct kernel_param *kp)
{
	int v;
	if (kstrtoint(val, 10, &v))
		return -EINVAL;
	tmod_poke(v);
	return 0;
}
static const struct kernel_param_ops poke_ops = { .set = poke_set, .get = param_get_int };
module_param_cb(poke, &poke_ops, &pokes, 0644);
MODULE_LICENSE("GPL");
EOF
    echo 'obj-m := dwtmod.o' >kmod/Kbuild
    make -s -C "/lib/modules/$KVER/build" M="$PWD/kmod" modules >kmod/build.log 2>&1
}

# The kretprobe entry handler path (@entry values): until dwarf/dwvars.c writes them, a module whose
# generated C gets a hand-written stp_dwarf_entry_N saving the count argument of vfs_read; the
# return body compares it with the return value (bytes read) for dd's 1-byte reads of /dev/zero.
# (Counts are statistics: <<< takes a shared lock, so probes on two CPUs never skip each other.)
build_entry_module() {
    mkdir -p ent
    $STAP -g -p3 -m t_dwent -e '
global same, differ
function saved:long() %{ STAP_RETVALUE = *(long *)CONTEXT->entry_data; %}
function returned:long() %{ STAP_RETVALUE = CONTEXT->regs->ax; %}
probe kernel.function("vfs_read").return {
    if (execname() == "dd" && saved() == 1) { if (returned() == 1) same <<< 1; else differ <<< 1 }
}
probe end { printf("same %d differ %d\n", @count(same), @count(differ)) }' >ent/t_dwent.c
    perl -0pi -e 's/STP_DWARF_KRETPROBE\((\d+)\)/static void stp_dwarf_entry_$1(struct stp_context *c) { *(long *)c->entry_data = c->regs->dx; }\nSTP_DWARF_KRETPROBE_ENTRY($1)/; s/\.ret = stp_dwarf_ret_(\d+)/.ret = stp_dwarf_ret_$1, .ret_entry = stp_dwarf_ret_entry_$1, .entry_size = 8/' ent/t_dwent.c
    grep -q 'STP_DWARF_KRETPROBE_ENTRY' ent/t_dwent.c
    printf 'obj-m := t_dwent.o\nccflags-y := -I%s -Wno-declaration-after-statement\n' "$TOP/runtime" >ent/Kbuild
    make -s -C "/lib/modules/$KVER/build" M="$PWD/ent" modules >ent/build.log 2>&1 || { cat ent/build.log; return 1; }
}

build() {
    have_vmlinux || { echo "no /usr/lib/debug/boot/vmlinux-$KVER" >SKIP; return 0; }
    # a line of vfs_read every call passes: the first line with code after its opening brace
    local decl line
    decl=$($STAP -l 'kernel.function("vfs_read")' | sed -n 's/.*read_write\.c:\([0-9]*\)")$/\1/p')
    line=$($STAP -p2 -e 'probe kernel.statement("vfs_read@fs/read_write.c:*") {}' |
        sed -n 's/^kernel\.statement("vfs_read@fs\/read_write\.c:\([0-9]*\)").*/\1/p' |
        awk -v d="$decl" '$1 > d + 1' | sort -n | head -n 1)
    [[ -n $decl && -n $line ]]
    echo "$line" >line
    $STAP -p4 -m t_dwcount -e '
global f, fr, k, st
probe kernel.function("vfs_read") { if (execname() == "dd") f <<< 1 }
probe kernel.function("vfs_read").return { if (execname() == "dd") fr <<< 1 }
probe kprobe.function("vfs_read") { if (execname() == "dd") k <<< 1 }
probe kernel.statement("vfs_read@fs/read_write.c:'"$line"'") { if (execname() == "dd") st <<< 1 }
probe end { printf("function %d return %d kprobe %d statement %d\n", @count(f), @count(fr), @count(k), @count(st)) }' >/dev/null
    $STAP -p4 -m t_dwwild -e '
global hits
probe kernel.function("vfs_*") { if (execname() == "dd") hits[pp()] <<< 1 }
probe kernel.function("vfs_*").return { if (execname() == "dd") hits[pp()] <<< 1 }
probe end { foreach (p in hits) printf("%d %s\n", @count(hits[p]), p) }' >/dev/null
    $STAP -p4 -m t_dwinl -e '
global n, where
probe kernel.function("vfs_fsync").inline { if (execname() == "sync") { n <<< 1; where = pp() } }
probe end { printf("%d %s\n", @count(n), where) }' >/dev/null
    build_entry_module
    write_kmod
    $STAP -p4 -m t_dwmod -e '
global n
probe module("'"$PWD"'/kmod/dwtmod.ko").function("tmod_poke") { n <<< 1; println(pp()) }
probe module("'"$PWD"'/kmod/dwtmod.ko").function("tmod_poke").return { n <<< 1 }
probe end { printf("hits %d\n", @count(n)) }' >/dev/null
}

guest() {
    if [[ -e SKIP ]]; then
        echo "skipped: $(cat SKIP)"
        return 0
    fi
    staprun -c 'dd if=/dev/zero of=/dev/null bs=1 count=1000 2>/dev/null' t_dwcount.ko >count.out
    staprun -c 'dd if=/dev/zero of=/dev/null bs=1 count=500 2>/dev/null' t_dwwild.ko >wild.out
    staprun -c 'dd if=/dev/zero of=/dev/null bs=1 count=500 2>/dev/null' ent/t_dwent.ko >entry.out
    echo x >/tmp/dwfile
    staprun -c 'sync /tmp/dwfile; sync /tmp/dwfile; sync /tmp/dwfile' t_dwinl.ko >inline.out
    # the module is not loaded yet: the probes cannot start
    not staprun t_dwmod.ko >nomod.out 2>nomod.err
    insmod kmod/dwtmod.ko
    staprun -c 'echo 2 >/sys/module/dwtmod/parameters/poke; echo 3 >/sys/module/dwtmod/parameters/poke' \
        t_dwmod.ko >mod.out
    rmmod dwtmod
}

check() {
    if [[ -e SKIP ]]; then
        grep -q '^skipped: ' out
        return 0
    fi
    [[ $(cat rc) == 0 ]]
    # every read dd made: the DWARF probe, its return, the kprobe and the statement all saw each one
    local f fr k st
    read -r _ f _ fr _ k _ st <count.out
    echo "function=$f return=$fr kprobe=$k statement=$st"
    (( f >= 1000 && f == k && fr == f && st == f ))
    # .return with entry data: the count saved at each call is what the call returned
    cat entry.out
    local same differ
    read -r _ same _ differ <entry.out
    (( same == 500 && differ == 0 ))
    # vfs_* and vfs_*.return (the sites of each share one handler and one trampoline; pp() is the
    # site's own): vfs_read and vfs_write at least 500 times each, under their canonical names, and
    # as many returns as calls
    cat wild.out
    awk '$2 ~ /^kernel\.function\("vfs_read@fs\/read_write\.c:[0-9]+"\)$/ && $1 >= 500 { r = $1 }
         $2 ~ /^kernel\.function\("vfs_write@fs\/read_write\.c:[0-9]+"\)$/ && $1 >= 500 { w = $1 }
         $2 ~ /^kernel\.function\("vfs_read@fs\/read_write\.c:[0-9]+"\)\.return$/ { rr = $1 }
         $2 ~ /^kernel\.function\("vfs_write@fs\/read_write\.c:[0-9]+"\)\.return$/ { wr = $1 }
         END { exit !(r && w && r == rr && w == wr) }' wild.out
    (( $(awk '{ print $2 }' wild.out | sed 's/@.*//' | sort -u | wc -l) >= 3 ))
    # the inline instance of vfs_fsync in the fsync system call: once per sync FILE
    cat inline.out
    grep -qx '3 kernel.function("vfs_fsync@fs/sync.c:[0-9]*").inline' inline.out
    # module probes: a clear error while the module is not loaded, then two calls, two returns
    grep -q 'dwtmod' nomod.err
    grep -q '^ERROR: module dwtmod is not loaded' nomod.err
    cat mod.out
    [[ $(grep -c '^module(".*/kmod/dwtmod.ko").function("tmod_poke@.*dwtmod.c:4")$' mod.out) == 2 ]]
    grep -qx 'hits 4' mod.out
}
