# staprun-safety: who may run what (root, stapusr, others; setuid staprun), -L/-A/-d, same name loaded, vermagic
# Used by tests/run (guest/staprun-safety). The stapusr cases need a setuid-root copy of staprun, made by build() as root.

timeout_s=300

build() {
    source "$TOP/tests/lib/module-edit.sh"
    $STAP -p4 -m ss_run -e 'probe begin { println("ran"); exit() }' >/dev/null
    $STAP -p4 -m ss_endless -e '
global n
probe begin { println("begin") }
probe timer.ms(50) { n++ }
probe end { printf("end ticks>0: %d\n", n > 0) }' >/dev/null
    $STAP -p4 -m ss_target -e 'probe begin { printf("target>0: %d\n", target() > 0) }' >/dev/null
    # a BPF object: loaded as root by the setuid staprun's stapio, run as the user (kprobes, a timer, maps)
    $STAP --runtime=bpf -p4 -m ss_bpf -e 'global n, r
probe kernel.function("ksys_read") { if (pid() == target()) r++ }
probe timer.ms(50) { n++ }
probe end { printf("bpf n>=3: %d reads>0: %d\n", n >= 3, r > 0) }' >/dev/null
    # a module really built for another installed kernel (make deps-kernels), if there is one
    local other
    other=$("$TOP/scripts/guest-kver.sh" --all | grep -vxF -- "$KVER" | head -n 1) || true
    if [[ -n $other ]]; then
        mkdir -p otherkver
        (cd otherkver && "$TOP/build/bin/stap" -r "$other" -p4 -m ss_run -e 'probe begin { println("ran") }' >/dev/null)
        echo "$other" >other.kver
    fi
    mkdir -p vm notours
    set_vermagic ss_run.ko vm/ss_run.ko 0.0.0-other
    replace_string ss_run.ko notours/ss_run.ko stap_transport=3 stap_tramsport=3
    # a small module of the kernel's own (6.12's are .ko.xz: guest_copy_module decompresses)
    local kmod
    kmod=$(find "/lib/modules/$KVER/kernel" \( -name '*.ko' -o -name '*.ko.[xgz]z' -o -name '*.ko.zst' \) \
           -size -64k -print -quit)
    [[ -n $kmod ]] || { echo "no module under /lib/modules/$KVER/kernel"; return 1; }
    source "$TOP/tests/lib/guest.sh"
    guest_copy_module "$kmod" . >kmod.name
    # staprun as an administrator would install it: setuid root, stapio next to it
    if (( EUID == 0 )); then
        mkdir -p bin
        cp "$TOP/build/bin/staprun" "$TOP/build/bin/stapio" bin/
        chown root:root bin bin/staprun bin/stapio
        chmod 755 bin
        chmod 4755 bin/staprun
    fi
    getent group stapusr | cut -d: -f3 >stapusr.gid || true
}

# wait_gone NAME: until module NAME is unloaded (5 s at most).
wait_gone() {
    local i
    for i in $(seq 50); do
        loaded "$1" || return 0
        nap 0.1
    done
    return 1
}

# refused FILE WANT CMD...: CMD exits 1 and its stderr (kept in FILE.err) contains WANT.
refused() {
    local file=$1 want=$2 rc=0
    shift 2
    "$@" >"$file.out" 2>"$file.err" || rc=$?
    if [[ $rc != 1 ]] || ! grep -qF -- "$want" "$file.err"; then
        echo "$file: $* gave exit $rc, wanted 1 and \"$want\":"; cat "$file.out" "$file.err"
        return 1
    fi
}

# Root, with the staprun of the tree (not setuid).
as_root() {
    local kmod other pid io rc
    kmod=$(cat kmod.name)
    echo "== root"
    refused vermagic "cannot load module vm/ss_run.ko: module ss_run was built for kernel 0.0.0-other; this is kernel $KVER: rebuild it with stap -r $KVER (or -p4 on a matching machine)" \
        staprun vm/ss_run.ko
    if [[ -f other.kver ]]; then
        refused otherkver "cannot load module otherkver/ss_run.ko: module ss_run was built for kernel $(cat other.kver); this is kernel $KVER: rebuild it with stap -r $KVER" \
            staprun otherkver/ss_run.ko
        not loaded ss_run
    else
        echo "SKIPPED the other-kernel case: only one kernel installed (make deps-kernels adds more)"
    fi
    refused notours "cannot load module notours/ss_run.ko: not a module built by stap" staprun notours/ss_run.ko
    refused kmod "cannot load module $kmod: not a module built by stap" staprun "$kmod"
    not loaded "${kmod%.ko}"
    refused badname 'bad module name "../x"' staprun -d ../x
    refused badname2 'bad module name "a/b"' staprun -A a/b
    refused notloaded "module ss_endless is not loaded" staprun -d ss_endless
    other=$(awk '$1 !~ /^ss_/ { print $1; exit }' /proc/modules)
    if [[ -n $other ]]; then
        refused notstap "module $other is not a stap module" staprun -d "$other"
        loaded "$other"
    fi
    staprun ss_run.ko >run.out
    grep -qx ran run.out

    # same name loaded: a clear error, then -d removes it
    staprun -L ss_endless.ko >detach.out 2>detach.err
    loaded ss_endless
    refused dup "module ss_endless is already loaded (a run of it is going on, or it was left behind: staprun -A ss_endless attaches, staprun -d ss_endless removes it)" \
        staprun ss_endless.ko
    loaded ss_endless
    staprun -d ss_endless
    not loaded ss_endless

    # -L, then -A goes on with the run until ^C
    staprun -L ss_endless.ko >detach2.out 2>detach2.err
    staprun -A ss_endless >attach.out 2>attach.err & pid=$!
    io=$(stapio_of $pid)
    sleep 1
    kill -INT "$io"
    rc=0; wait $pid || rc=$?
    [[ $rc == 0 ]] || { echo "staprun -A: exit $rc"; cat attach.err; return 1; }
    grep -q '^end ticks>0: 1$' attach.out
    not loaded ss_endless

    # staprun and stapio both killed outright: the module stays, staprun -d removes it
    staprun ss_endless.ko >killed.out 2>killed.err & pid=$!
    io=$(stapio_of $pid)
    kill -KILL $pid "$io"
    wait $pid 2>/dev/null || true
    loaded ss_endless
    staprun -d ss_endless
    not loaded ss_endless
}

# Not root, not in stapusr or stapdev: refused, setuid or not.
as_nobody() {
    local -a nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    local want="you are not allowed to run stap modules: that takes root, or membership in group stapdev (any module built by stap) or stapusr (modules installed in /lib/modules/$KVER/systemtap)"
    echo "== nobody"
    refused nobody "$want" "${nobody[@]}" staprun ss_run.ko
    if [[ -u bin/staprun ]]; then
        refused nobody-suid "$want" "${nobody[@]}" bin/staprun ss_run.ko
        staprun -L ss_endless.ko >/dev/null 2>&1
        refused nobody-d "$want" "${nobody[@]}" bin/staprun -d ss_endless
        refused nobody-A "$want" "${nobody[@]}" bin/staprun -A ss_endless
        loaded ss_endless
        staprun -d ss_endless
    fi
    not loaded ss_run
}

# In stapusr, with the setuid staprun, in a private mount namespace where
# /lib/modules/$KVER/systemtap is a directory of root's on a tmpfs.
stapusr_cases() {
    local usr=$1 dir=/lib/modules/$KVER/systemtap pid io rc
    local -a user=(setpriv --reuid=65534 --regid=65534 --groups="$usr")
    mount -t tmpfs -o mode=0755 stapsafety /lib/modules
    mkdir -p "$dir"
    # the setuid staprun where an administrator installs it, in directories root's alone up to /
    # (the tmpfs over /lib/modules): the clone may be under /tmp or /var/tmp, which anyone can write
    local sbin=/lib/modules/stap-bin
    mkdir -m 755 "$sbin"
    cp bin/staprun bin/stapio "$sbin/"
    chmod 4755 "$sbin/staprun"
    cp ss_run.ko ss_endless.ko ss_target.ko ss_bpf.bo "$dir"/
    mkdir -p /tmp/ss/u /tmp/ss/rootonly /tmp/ss/evil
    chmod 777 /tmp/ss/u

    # outside the systemtap directory; parameters
    refused usr-outside "cannot load module $CASE_DIR/ss_run.ko: members of stapusr may only run modules installed in $dir/, where root alone can change them" \
        "${user[@]}" "$sbin/staprun" "$CASE_DIR/ss_run.ko"
    refused usr-param 'members of stapusr may not set module parameters ("x=1")' \
        "${user[@]}" "$sbin/staprun" "$dir/ss_run.ko" x=1

    # symlink tricks: the module, a directory, ".." out of the directory
    ln -s "$CASE_DIR/ss_run.ko" "$dir/link.ko"
    refused usr-link "it is a symbolic link" "${user[@]}" "$sbin/staprun" "$dir/link.ko"
    cp ss_run.ko /tmp/ss/evil/
    chown 65534 /tmp/ss/evil   # the module is root's, but a user could swap it
    ln -s /tmp/ss/evil "$dir/sub"
    refused usr-dirlink "it is /tmp/ss/evil/ss_run.ko" "${user[@]}" "$sbin/staprun" "$dir/sub/ss_run.ko"
    refused usr-dotdot "it is $CASE_DIR/ss_run.ko" "${user[@]}" "$sbin/staprun" "$dir/../../../../..$CASE_DIR/ss_run.ko"
    # not root's alone: the file, a directory
    mkdir -m 755 "$dir/own" "$dir/gw"
    cp ss_run.ko "$dir/own/"
    chown 65534 "$dir/own/ss_run.ko"
    refused usr-owner "it is not owned by root" "${user[@]}" "$sbin/staprun" "$dir/own/ss_run.ko"
    cp ss_run.ko "$dir/gw/"
    chmod 775 "$dir/gw"
    refused usr-gw "is not root's alone" "${user[@]}" "$sbin/staprun" "$dir/gw/ss_run.ko"
    not loaded ss_run

    # an installed module runs (by bare name too); stapio and the -c command are the user,
    # with a clean environment
    "${user[@]}" "$sbin/staprun" "$dir/ss_run.ko" >usr-run.out 2>usr-run.err
    grep -qx ran usr-run.out
    "${user[@]}" "$sbin/staprun" -o /tmp/ss/u/run.txt ss_run >usr-o.out 2>usr-o.err
    grep -qx ran /tmp/ss/u/run.txt
    [[ $(stat -c %u /tmp/ss/u/run.txt) == 65534 ]]
    refused usr-o-denied "Permission denied" "${user[@]}" "$sbin/staprun" -o /tmp/ss/rootonly/run.txt ss_run
    [[ ! -e /tmp/ss/rootonly/run.txt ]]
    not loaded ss_run
    "${user[@]}" env LD_LIBRARY_PATH=/nonexistent SS_SECRET=1 "$sbin/staprun" -c 'id -u; id -g; env' \
        ss_target >usr-c.out 2>usr-c.err
    grep -qx 'target>0: 1' usr-c.out
    (( $(grep -cx 65534 usr-c.out) == 2 ))
    grep -q '^PATH=' usr-c.out
    not grep -q 'SS_SECRET\|LD_LIBRARY_PATH' usr-c.out
    not loaded ss_target

    # -L, the same name again, -A, -d, all as the stapusr member
    "${user[@]}" "$sbin/staprun" -L ss_endless >usr-L.out 2>usr-L.err
    loaded ss_endless
    refused usr-dup "module ss_endless is already loaded" "${user[@]}" "$sbin/staprun" ss_endless
    "${user[@]}" "$sbin/staprun" -A ss_endless >usr-A.out 2>usr-A.err & pid=$!
    io=$(stapio_of $pid)
    # stapio dropped the setuid privileges: real, effective, saved and fs uid are the user's
    [[ $(awk '/^Uid:/ { print $2, $3, $4, $5 }' /proc/"$io"/status) == "65534 65534 65534 65534" ]]
    sleep 1
    kill -INT "$io"
    rc=0; wait $pid || rc=$?
    [[ $rc == 0 ]] || { echo "stapusr staprun -A: exit $rc"; cat usr-A.err; return 1; }
    grep -q '^end ticks>0: 1$' usr-A.out
    not loaded ss_endless
    "${user[@]}" "$sbin/staprun" -L ss_endless >usr-L2.out 2>usr-L2.err
    "${user[@]}" "$sbin/staprun" -d ss_endless
    not loaded ss_endless
    # a BPF object: not outside the directory; installed, it runs, and the -c command, the output file and stapio
    # once the probes are armed (the command's parent) have the user's ids alone; the run ends with the command,
    # after its parent's ids were read (a timer's exit() could end it first in a loaded guest)
    refused usr-bpf-outside "cannot load BPF object $CASE_DIR/ss_bpf.bo: members of stapusr may only run modules installed in $dir/" \
        "${user[@]}" "$sbin/staprun" "$CASE_DIR/ss_bpf.bo"
    "${user[@]}" "$sbin/staprun" -o /tmp/ss/u/bpf.txt \
        -c "sh -c 'cat /proc/self/status /proc/\$PPID/status | grep ^Uid: >/tmp/ss/u/bpf-ids; sleep 3'" \
        "$dir/ss_bpf.bo" >usr-bpf.out 2>usr-bpf.err || { cat usr-bpf.err; return 1; }
    grep -qx 'bpf n>=3: 1 reads>0: 1' /tmp/ss/u/bpf.txt || { cat /tmp/ss/u/bpf.txt usr-bpf.err; return 1; }
    [[ $(stat -c %u /tmp/ss/u/bpf.txt) == 65534 ]]
    (( $(grep -cxP 'Uid:\t65534\t65534\t65534\t65534' /tmp/ss/u/bpf-ids) == 2 )) || { cat /tmp/ss/u/bpf-ids; return 1; }
    other=$(awk '$1 !~ /^ss_/ { print $1; exit }' /proc/modules)
    if [[ -n $other ]]; then
        refused usr-notstap "module $other is not a stap module" "${user[@]}" "$sbin/staprun" -d "$other"
    fi
    echo "stapusr cases done"
}

# TERM or HUP to staprun at any moment from its start (before, during and after the module's
# load, before stapio runs): the run ends and never leaves the module loaded.
early_signals() {
    local i sig pid
    for i in $(seq 0 11); do
        sig=TERM
        (( i % 3 == 2 )) && sig=HUP
        staprun ss_endless.ko >early.out 2>early.err & pid=$!
        sleep "0.0$((i % 10))"
        kill -s $sig $pid 2>/dev/null || true
        wait $pid || true
        wait_gone ss_endless || { echo "early $sig after 0.0$((i % 10)) s: ss_endless left loaded"; cat early.err; return 1; }
    done
    echo "early signals done"
}

guest() {
    as_root
    early_signals
    as_nobody
    local usr
    usr=$(cat stapusr.gid)
    if [[ ! -u bin/staprun || -z $usr ]]; then
        echo "SKIPPED the stapusr cases: no setuid staprun (build() not run as root) or no group stapusr"
        return 0
    fi
    echo "== stapusr"
    # a private mount namespace: the tmpfs over /lib/modules goes away with it
    export -f stapusr_cases refused loaded file_has nap stapio_of not
    unshare -m --propagation private bash -ec "cd '$CASE_DIR'; stapusr_cases $usr"
    not loaded ss_run
    not loaded ss_endless
}

check() {
    grep -q '^early signals done$' out || { grep early out; return 1; }
    grep -q '^stapusr cases done$' out || grep -q '^SKIPPED the stapusr cases' out
}
