# Exact kernel function names looked up without the DWARF index (cold cache) give what the index gives: -p2 and -p3
# Used by tests/run (issue 19): translator/dwarf/exactname.c, its fallbacks to the index, and the cached index still taken.

timeout_s=600
cost_s=40

# out DIR NAME ARGS...: stap ARGS with SYSTEMTAP_DIR=DIR, stdout and stderr (timings, the lookup's own lines and
# -v's notes of skipped sites dropped) and
# the exit status into NAME
out() {
    local dir=$1 name=$2 rc=0
    shift 2
    SYSTEMTAP_DIR=$dir "$STAP" -r "$KVER" "$@" >"$name.raw" 2>&1 || rc=$?
    grep -v -e '^Pass [0-9]' -e '^DWARF' -e '^Tapset index' -e '^Kernel debuginfo' -e '^Skipping ' "$name.raw" >"$name" || true
    echo "rc $rc" >>"$name"
}

run() {
    local V=/usr/lib/debug/boot/vmlinux-$KVER
    [[ -n $KVER && -e $V ]] || { echo "no kernel debuginfo $V"; return 77; }
    # the reference: the index (built once by the first run, then loaded from the cache)
    mkdir -p idx
    STAP_DWARF_FASTPATH=0 SYSTEMTAP_DIR=$PWD/idx "$STAP" -vv -r "$KVER" -p2 -e 'probe kernel.function("vfs_read") {}' \
        >/dev/null 2>idx.err
    grep -q "^DWARF index of $V: .* built and saved to" idx.err
    # vfs_read's line in this kernel's source, as the index gives it
    local line
    line=$(SYSTEMTAP_DIR=$PWD/idx "$STAP" -r "$KVER" -l 'kernel.function("vfs_read@fs/read_write.c")' |
           sed -n 's/^kernel.function("vfs_read@fs\/read_write.c:\([0-9]*\)")$/\1/p')
    [[ -n $line ]]
    # POINT|BODY|how the cold lookup goes: fast (no index) or index (falls back to it)
    local -a cases=(
        'kernel.function("vfs_read")|println($count)|fast'
        'kernel.function("vfs_read").return|println($return)|fast'
        'kernel.function("vfs_read").call|println($count)|fast'
        'kernel.function("vfs_read@fs/read_write.c")|println($count)|fast'
        "kernel.function(\"vfs_read@fs/read_write.c:$line\")|println(pp())|fast"
        'kernel.statement("vfs_read@fs/read_write.c+4")|println(pp())|fast'
        'kernel.function("rw_verify_area")|println($count)|fast'
        'kernel.function("vfs_setpos").inline|println($offset)|fast'
        'kernel.function("ksys_pread64")|println($count)|fast'
        'kernel.function("generic_file_read_iter")|println($iocb->ki_pos)|fast'
        'kernel.function("ftrace_replace_code")|println(pp())|fast'
        'kernel.function("do_iter_read")|println(pp())|index'
        'kernel.function("new_sync_read")|println(pp())|index'
        'kernel.function("fsnotify_access")|println(pp())|index'
        'kernel.function("c_start")|println($pos)|index'
        'kernel.function("vfs_read@fs/nosuch.c")|println(pp())|index'
        'kernel.function("vfs_read").inline|println(pp())|index'
        'kernel.function("__x64_sys_capget@kernel/sys_ni.c")|println(pp())|index'
        'kernel.function("no_such_function_here")|println(pp())|index'
    )
    local i c point body how fast=0 p3=0
    for i in "${!cases[@]}"; do
        c=${cases[i]}
        point=${c%%|*} body=${c#*|} how=${c##*|} body=${body%|*}
        local script="probe $point { $body }"
        # -vv on both sides: the lines of the lookup's own (DWARF: ...) and -v's notes of skipped sites (which only
        # the index's path prints) are dropped by out, the rest is compared: one cold run a point, not a -vv one
        # and a plain one, as an index case's cold run builds the whole index (about 2.5 s of CPU under ASan)
        out "$PWD/idx" ref.$i -vv -p2 -e "$script"
        # cold: no index in the cache (the tapset index may stay)
        rm -rf cold/cache/dwarf
        out "$PWD/cold" cold.$i -vv -p2 -e "$script"
        if [[ $how == fast ]]; then
            grep -q '^rc 0$' ref.$i || { echo "case $i: the index rejects $point"; cat ref.$i; return 1; }
            grep -q "^DWARF: '.*' found without the index" cold.$i.raw || { echo "case $i: $point not found without the index"; cat cold.$i.raw; return 1; }
            [[ ! -e cold/cache/dwarf ]] || { echo "case $i: an index was built"; return 1; }
            fast=$((fast + 1))
        else
            grep -q "^DWARF: '.*' looked up in the index: \|^DWARF index of .* built" cold.$i.raw ||
                { echo "case $i: $point did not fall back to the index"; cat cold.$i.raw; return 1; }
        fi
        diff ref.$i cold.$i || { echo "case $i: $point: -p2 differs (index left, fast path right)"; return 1; }
        if [[ $how == fast ]]; then
            out "$PWD/idx" ref3.$i -p3 -e "$script"
            rm -rf cold/cache/dwarf
            out "$PWD/cold" cold3.$i -p3 -e "$script"
            grep -q 'stp_dwarf_probes' cold3.$i
            diff ref3.$i cold3.$i || { echo "case $i: $point: -p3 differs"; return 1; }
            p3=$((p3 + 1))
        fi
    done
    # with the index cached it is what answers (the warm path is unchanged)
    out "$PWD/idx" warm -vv -p2 -e 'probe kernel.function("vfs_read") { println($count) }'
    grep -q "^DWARF index of $V: .* loaded from $PWD/idx/cache/dwarf/" warm.raw
    not grep -q "found without the index" warm.raw
    # several exact points in one script: each without the index, one unit read per name
    rm -rf cold/cache/dwarf
    out "$PWD/cold" multi -vv -p2 -e 'probe kernel.function("vfs_read"), kernel.function("vfs_write"), kernel.function("ksys_read") { println(pp()) }'
    [[ $(grep -c "found without the index" multi.raw) -eq 3 ]]
    out "$PWD/idx" multi.ref -p2 -e 'probe kernel.function("vfs_read"), kernel.function("vfs_write"), kernel.function("ksys_read") { println(pp()) }'
    rm -rf cold/cache/dwarf
    out "$PWD/cold" multi.cold -p2 -e 'probe kernel.function("vfs_read"), kernel.function("vfs_write"), kernel.function("ksys_read") { println(pp()) }'
    diff multi.ref multi.cold
    echo "${#cases[@]} points equal ($fast without the index, -p3 of $p3 equal too)"
}
