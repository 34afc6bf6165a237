# stap -e runs all five passes inside the guest: pass 5 starts staprun itself on the running kernel, with -G globals; with no DWARF, kernel.function is typed from BTF and armed through ftrace at /proc/kallsyms's address; kernel.data($1) watches an address only the running kernel knows (dirty_expire_interval's, from /proc/kallsyms), hit by each sysctl write
# Used by tests/run (issues 2, 21, 31). Slow under TCG (gcc runs in the emulated guest), so only one case does it.

timeout_s=900

# stap_env CMD...: CMD with the same small environment on the host and in the guest, so that the
# kbuild steps build() records (translator/compile/kbuild_steps.c, keyed by the environment) serve the guest.
# The kernel's DWARF is hidden: a production host without its -dbg package.
stap_env() {
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin TMPDIR=/tmp HOME=/root LANG=C \
        SYSTEMTAP_DIR="$CASE_DIR/systemtap" STAP_DEBUGINFO_PATH="$CASE_DIR/nodbg" "$@"
}

build() {
    mkdir -p nodbg
    # another script (no module cache hit in the guest): records kbuild's steps and caches the
    # kernel feature tests, as a first stap run on that machine would
    stap_env "$TOP/build/bin/stap" -r "$KVER" -p4 -vv -e 'probe begin { println("primed"); exit() }' \
        >/dev/null 2>prime.err || { cat prime.err; return 1; }
    grep -q "^Pass 4: kbuild's steps recorded in " prime.err
}

guest() {
    # the sysctl vm.dirty_expire_centisecs is the int dirty_expire_interval (KASLR moves it at each boot):
    # the command writes it twice, 3001 then its value before
    local f=/proc/sys/vm/dirty_expire_centisecs orig addr
    orig=$(cat $f)
    echo "$orig" >orig
    addr=0x$(awk '$3 == "dirty_expire_interval" { print $1 }' /proc/kallsyms)
    echo "$addr" >addr
    # -G sets a global when the run starts (passed on to staprun as who=world). The command lists, while
    # the probe is armed, ksys_read's kprobes (none: it is one of ftrace's functions) and its ftrace line
    local cmd='grep -c " ksys_read+0x" /sys/kernel/debug/kprobes/list >kprobes; grep "^ksys_read " /sys/kernel/tracing/enabled_functions >ftrace; grep " ksys_read$" /proc/kallsyms >kallsyms; dd if=/dev/zero of=/dev/null bs=1 count=50 2>/dev/null'
    cmd+="; echo 3001 >$f; echo $orig >$f"
    stap_env "$TOP/build/bin/stap" -vv -G who=world -c "sh -c '$cmd'" -e '
global who = "nobody", reads
probe begin { println("hello ", who) }
probe kernel.function("ksys_read") { if (execname() == "dd" && $count == 1) reads++ }
probe kernel.data($1).length(4).write { printf("%s %d\n", pp(), kernel_int($1)) }
probe end { printf("reads %d\n", reads) }' "$addr" >stap.out 2>stap.err
    echo $? >stap.rc
    # nothing left behind in the temp directory, nothing left loaded
    ls -A /tmp | grep '^stap' >leftover || true
    grep -c '^stap_' /proc/modules >loaded || true
}

check() {
    [[ $(cat stap.rc) == 0 ]] || { cat stap.err; return 1; }
    local addr orig
    addr=$(cat addr)
    orig=$(cat orig)
    [[ $addr =~ ^0xffffffff[0-9a-f]{8}$ ]] || { echo "no address for dirty_expire_interval: $addr"; return 1; }
    # each write seen just after it, with the value written
    printf 'hello world\nkernel.data(%s).length(4).write 3001\nkernel.data(%s).length(4).write %s\nreads 50\n' \
        "$addr" "$addr" "$orig" | diff - stap.out
    # -v: a timing line for each of the five passes
    for p in 1 2 3 4 5; do grep -q "^Pass $p: " stap.err; done
    grep -qx 'kernel.function("ksys_read"): 1 site typed from BTF (/sys/kernel/btf/vmlinux)' stap.err
    # the guest compiled its own module, through the steps recorded on the host
    grep -q "^Pass 4: cache miss" stap.err
    grep -q "^Pass 4: ran kbuild's recorded steps " stap.err
    # armed through ftrace (fentry.h) at the address kallsyms gave the translator, not as a kprobe
    [[ $(cat kprobes) == 0 ]] || { echo "ksys_read has a kprobe"; cat kprobes; return 1; }
    grep -q "^ksys_read .*stp_fentry_hit" ftrace || { echo "ksys_read is not ftrace's through stp_fentry_hit:"; cat ftrace; return 1; }
    [[ -s kallsyms ]]
    [[ ! -s leftover ]]
    [[ $(cat loaded) == 0 ]]
}
