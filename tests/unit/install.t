# make install PREFIX=... DESTDIR=...: the installed stap finds its runtime, staprun finds stapio
# Used by tests/run (issue 2); installs into the scratch directory, never into the system.

# no ASan rerun: it installs and runs the normal build
asan_rerun=0

run() {
    export TMPDIR=$PWD
    make -s -C "$TOP" install PREFIX=/usr DESTDIR="$PWD/root" >install.log 2>&1 || { cat install.log; return 1; }
    local bin=$PWD/root/usr/bin
    [[ -x $bin/stap && -x $bin/staprun && -x $PWD/root/usr/libexec/systemtap/stapio ]]
    [[ -x $bin/stap-merge && -f $PWD/root/usr/share/man/man1/stap-merge.1 ]]
    [[ -x $bin/app-trace-report && -f $PWD/root/usr/share/man/man1/app-trace-report.1 ]]
    # systemd unit templates, with the installed bindir; systemd-analyze verify has nothing to say
    # of an instance of each (systemd 252: a template is verified through an instance's name)
    local u
    mkdir -p units
    for u in stap staprun; do
        grep -q "exec /usr/bin/$u \$\$opts " "root/usr/lib/systemd/system/$u@.service"
        cp "root/usr/lib/systemd/system/$u@.service" "units/$u@demo.service"
    done
    # their Documentation= pages are looked up by man(1) in the tree just installed, not the machine's
    # (a machine without man(1) checks the rest)
    if command -v systemd-analyze >/dev/null; then
        local man=--man=no
        command -v man >/dev/null && man=--man=yes
        MANPATH=$PWD/root/usr/share/man systemd-analyze verify $man "$PWD/units/stap@demo.service" \
            "$PWD/units/staprun@demo.service" >verify.out 2>&1 ||
            { cat verify.out; return 1; }
        [[ ! -s verify.out ]] || { cat verify.out; return 1; }
    fi
    [[ -f $PWD/root/usr/share/systemtap/runtime/runtime.h && -d $PWD/root/usr/share/systemtap/tapset ]]
    [[ -f $PWD/root/usr/share/man/man1/stap.1 && -f $PWD/root/usr/share/man/man8/staprun.8 &&
       -f $PWD/root/usr/share/man/man3/stapfuncs.3stap ]]
    # the tapset's pages, generated from its doc comments (scripts/gen-tapset-man.sh)
    [[ -f "$PWD/root/usr/share/man/man3/probe::vfs.read.3stap" &&
       -f "$PWD/root/usr/share/man/man3/function::task_parent.3stap" &&
       -f "$PWD/root/usr/share/man/man3/tapset::vfs.3stap" ]]
    MANWIDTH=80 man -l "$PWD/root/usr/share/man/man3/probe::vfs.read.3stap" | grep -q 'bytes_to_read'
    # the installed translator compiles a module with the installed runtime
    (cd "$PWD" && "$bin/stap" -k -p4 -m t_inst -r "$KVER" -e 'probe begin { exit() }') >p4.out 2>p4.err ||
        { cat p4.err; return 1; }
    grep -q "ccflags-y := -I$PWD/root/usr/share/systemtap/runtime " "$(sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p' p4.err)/Kbuild"
    [[ -f t_inst.ko ]]
    # the installed staprun finds stapio in ../libexec/systemtap before it loads the module
    # (loading then fails on this host, which cannot load modules)
    "$bin/staprun" t_inst.ko >run.out 2>&1 || true
    not grep -q 'cannot find stapio' run.out
    grep -q 'cannot load module t_inst' run.out
    # a staprun without its stapio refuses before loading anything
    cp "$bin/staprun" lonely-staprun
    not ./lonely-staprun t_inst.ko 2>lonely.err
    grep -q 'cannot find stapio' lonely.err
}
