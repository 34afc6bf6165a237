# dwarf-label: kernel.function("F").label("NAME") and module("M").function("F").label("NAME"): probes at a function's DWARF labels (globs too), each hit in the order the code passes them, with the function's variables in scope; a missing label is an error
# Used by tests/run (issue 31): translator/providers/labels.c, providers/kernelfn.c.

timeout_s=150

have_vmlinux() { [[ -e /usr/lib/debug/boot/vmlinux-$KVER ]]; }

# a module whose lbl_step(v) passes label "odd" for odd v, then label "done" always
write_kmod() {
    mkdir -p kmod
    cat >kmod/lbltmod.c <<'EOF2'
#include <linux/module.h>
#include <linux/moduleparam.h>
static int total;
static noinline int lbl_step(int v)
{
	int t = v * 10;

	if (!(v & 1))
		goto done;
odd:
	t += 1;
	barrier();
	if (t < 0)
		goto odd;
done:
	total += t;
	barrier();
	return total;
}
static int step_set(const char *val, const struct kernel_param *kp)
{
	int v;
	if (kstrtoint(val, 10, &v))
		return -EINVAL;
	lbl_step(v);
	return 0;
}
static const struct kernel_param_ops step_ops = { .set = step_set, .get = param_get_int };
module_param_cb(step, &step_ops, &total, 0644);
MODULE_LICENSE("GPL");
EOF2
    echo 'obj-m := lbltmod.o' >kmod/Kbuild
    echo 'ccflags-y := -g -O0' >>kmod/Kbuild
    make -s -C "/lib/modules/$KVER/build" M="$PWD/kmod" modules >kmod/build.log 2>&1 || { cat kmod/build.log; return 1; }
}

build() {
    have_vmlinux || { echo "no /usr/lib/debug/boot/vmlinux-$KVER" >SKIP; return 0; }
    cat >labelprog.c <<'EOF2'
#include <unistd.h>
/* access(2) of a directory that exists (mode 1), then of a path that does not (mode 2) */
int main(void)
{
	access("/", X_OK);
	access("/nonexistent-label-test", W_OK);
	return 0;
}
EOF2
    gcc -O1 -o labelprog labelprog.c
    # do_faccessat: "retry" before the lookup, "out" on the way out (the loader's own access(2) calls,
    # mode 4, left out)
    $STAP -p4 -m t_klabel -e '
global on
probe kernel.function("do_faccessat").label("retry") {
    if (execname() == "labelprog" && $mode != 4) { on = 1; printf("%s mode %d\n", pp(), $mode) }
}
probe kernel.function("do_faccessat").label("out") { if (on) { on = 0; println(pp()) } }' >/dev/null
    # the canonical name of the function, as -p2 prints it for its labels
    $STAP -p2 -e 'probe kernel.function("do_faccessat").label("*") { }' | sed -n 's/^\(kernel\.function("do_faccessat@[^"]*")\)\.label("\([a-z_]*\)").*/\1 \2/p' >klabels
    grep -q ' retry$' klabels && grep -q ' out$' klabels && grep -q ' out_path_release$' klabels
    # no such label: an error at the function's pattern; a glob that matches none: nothing, quietly with ?
    not $STAP -p2 -e 'probe kernel.function("do_faccessat").label("nope") { }' >/dev/null 2>nolabel.err
    grep -q "^<input>:1:23: semantic error: 'do_faccessat' has no label 'nope' with code in the debuginfo$" nolabel.err
    $STAP -p2 -e 'probe kernel.function("do_faccessat").label("nope*") ?, begin { }' >/dev/null
    write_kmod
    $STAP -p4 -m t_mlabel -e '
probe module("'"$PWD"'/kmod/lbltmod.ko").function("lbl_step").label("*") { printf("%s v=%d t=%d\n", pp(), $v, $t) }' >/dev/null
}

guest() {
    [[ -e SKIP ]] && { cat SKIP; return 0; }
    staprun -c ./labelprog t_klabel.ko >klabel.out 2>klabel.err
    insmod kmod/lbltmod.ko
    staprun -c 'sh -c "echo 3 >/sys/module/lbltmod/parameters/step; echo 4 >/sys/module/lbltmod/parameters/step"' \
        t_mlabel.ko >mlabel.out 2>mlabel.err
    rmmod lbltmod
}

check() {
    [[ -e SKIP ]] && return 0
    [[ $(cat rc) == 0 ]] || { cat err; return 1; }
    local f
    f=$(awk '{ print $1; exit }' klabels)
    cat >want <<W
$f.label("retry") mode 1
$f.label("out")
$f.label("retry") mode 2
$f.label("out")
W
    diff want klabel.out
    [[ ! -s klabel.err ]]
    # lbl_step(3): odd (t = 30), done (t = 31); lbl_step(4): done (t = 40)
    sed 's/function("lbl_step@[^"]*")/function("lbl_step")/' mlabel.out >mlabel.short
    cat >want <<W
module("$CASE_DIR/kmod/lbltmod.ko").function("lbl_step").label("odd") v=3 t=30
module("$CASE_DIR/kmod/lbltmod.ko").function("lbl_step").label("done") v=3 t=31
module("$CASE_DIR/kmod/lbltmod.ko").function("lbl_step").label("done") v=4 t=40
W
    diff want mlabel.short
    [[ ! -s mlabel.err ]]
}
