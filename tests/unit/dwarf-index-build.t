# The DWARF index read directly by several threads equals the one read through libdw, and a cold lookup (index built) prints what a warm one (index loaded) does
# Used by tests/run (issue 19): translator/dwarf/index.c's two builders (rawindex.c's dwidx_raw_build, index_cu), its cache (indexcache.c), and dwarf_name_info's entry pcs.

timeout_s=600
cost_s=30

# index_diff A B: the two index files hold the same names, CUs, DIEs, files, lines, tags and flags in
# the same order (strings may be laid out differently); an entry pc may be 0 in B (read on lookup).
index_diff() {
    python3 - "$1" "$2" <<'EOF'
import struct, sys
def load(path):
    b = open(path, 'rb').read()
    magic, ver, ne, nc, nf, so, sl, eo, co, fs = struct.unpack_from('<8sIIIIQQQQQ', b, 0)
    assert magic == b'STPDWIX\0' and fs == len(b), path
    s = lambda o: b[so + o:b.index(b'\0', so + o)].decode()
    cus = [struct.unpack_from('<QII', b, co + 16 * i) for i in range(nc)]
    cus = [(die, s(n), s(d)) for die, n, d in cus]
    ents = []
    for i in range(ne):
        name, cu, die, pc, f, line, tag, flags, pad = struct.unpack_from('<IIQQIIHHI', b, eo + 40 * i)
        ents.append((s(name), cus[cu][0], die, pc, s(f), line, tag, flags))
    return nf, cus, ents
a, b = load(sys.argv[1]), load(sys.argv[2])
assert a[0] == b[0], ('functions', a[0], b[0])
assert a[1] == b[1], 'compile units differ'
assert len(a[2]) == len(b[2]), ('entries', len(a[2]), len(b[2]))
later = 0
for x, y in zip(a[2], b[2]):
    if x != y:
        assert y[3] == 0 and (x[7] & 1) and x[:3] + x[4:] == y[:3] + y[4:], (x, y)
        later += 1
assert later * 20 < len(a[2]), ('pcs left to the lookup', later)
print(len(a[2]), 'entries equal,', later, 'entry pcs read on lookup')
EOF
}

run() {
    local V=/usr/lib/debug/boot/vmlinux-$KVER
    [[ -n $KVER && -e $V ]] || { echo "no kernel debuginfo $V"; return 77; }
    # the index's builders are what is tested here: exact names cold would be found without the
    # index (dwarf-exactname.t)
    export STAP_DWARF_FASTPATH=0
    local id
    id=$(readelf -n "$V" | sed -n 's/^ *Build ID: //p')
    # vfs_read: one function; c_start: a static function of three CUs (arch/x86/kernel/cpu/proc.c,
    # fs/proc/consoles.c, crypto/proc.c); ksys_pread64: out of line and inlined into its syscalls;
    # and a name that does not exist
    local -a probes=('kernel.function("vfs_read") { println($count) }'
                     'kernel.function("c_start") { println($pos) }'
                     'kernel.function("ksys_pread64") { println($count) }'
                     'kernel.function("no_such_function_here") { println($count) }')
    local -a points=('kernel.function("vfs_read")' 'kernel.function("c_start")' 'kernel.function("ksys_pread64")'
                     'kernel.function("no_such_function_here")')

    # the libdw builder (STAP_INDEX_THREADS=0): the reference, cold for the first probe, warm after
    rm -rf ref && mkdir ref
    STAP_INDEX_THREADS=0 SYSTEMTAP_DIR=$PWD/ref "$STAP" -vv -p2 -r "$KVER" -e "probe ${probes[0]}" >ref/out0 2>ref/err0
    grep -q "^DWARF index of $V: .* read through libdw in" ref/err0
    grep -q "^DWARF index of $V: .* built and saved to $PWD/ref/cache/dwarf/$id.idx in" ref/err0
    local i
    for i in 0 1 2 3; do
        SYSTEMTAP_DIR=$PWD/ref "$STAP" -p2 -r "$KVER" -e "probe ${probes[i]}" >ref/p2.$i 2>&1 && echo "rc 0" >>ref/p2.$i || echo "rc $?" >>ref/p2.$i
        SYSTEMTAP_DIR=$PWD/ref "$STAP" -r "$KVER" -L "${points[i]}" >ref/L.$i 2>&1 && echo "rc 0" >>ref/L.$i || echo "rc $?" >>ref/L.$i
    done
    # what the references say, so that equal outputs below mean something
    grep -q '^kernel\.function("vfs_read@fs/read_write\.c:[0-9]*")' ref/p2.0
    grep -q '^rc 0$' ref/p2.0
    [[ $(grep -c '^kernel\.function("c_start@' ref/p2.1) -ge 3 ]]
    grep -q 'c_start@arch/x86/kernel/cpu/proc\.c' ref/p2.1
    grep -q 'c_start@fs/proc/consoles\.c' ref/p2.1
    grep -q 'c_start@crypto/proc\.c' ref/p2.1
    [[ $(grep -c '^kernel\.function("ksys_pread64@fs/read_write\.c:[0-9]*")' ref/p2.2) -ge 2 ]]
    grep -q '\$count:size_t' ref/L.2
    [[ $(grep -c '^kernel\.function("c_start@.* \$pos:loff_t\*' ref/L.1) -eq 3 ]]
    grep -q 'no_such_function_here' ref/p2.3
    grep -q '^rc 1$' ref/p2.3

    # the threads' builder is the one a cold run takes
    rm -rf cold && mkdir cold
    STAP_INDEX_THREADS=2 SYSTEMTAP_DIR=$PWD/cold "$STAP" -vv -p2 -r "$KVER" -e "probe ${probes[0]}" >cold/out 2>cold/err
    grep -q "^DWARF index of $V: .* read directly by several threads in" cold/err
    grep -q "^DWARF index of $V: .* built and saved to $PWD/cold/cache/dwarf/$id.idx in" cold/err
    # each probe cold (an empty cache: the index read directly by two threads), then warm
    for i in 0 1 2 3; do
        rm -rf cold2 && mkdir cold2
        STAP_INDEX_THREADS=2 SYSTEMTAP_DIR=$PWD/cold2 "$STAP" -p2 -r "$KVER" -e "probe ${probes[i]}" >p2.cold.$i 2>&1 && echo "rc 0" >>p2.cold.$i || echo "rc $?" >>p2.cold.$i
        SYSTEMTAP_DIR=$PWD/cold2 "$STAP" -p2 -r "$KVER" -e "probe ${probes[i]}" >p2.warm.$i 2>&1 && echo "rc 0" >>p2.warm.$i || echo "rc $?" >>p2.warm.$i
        SYSTEMTAP_DIR=$PWD/cold2 "$STAP" -r "$KVER" -L "${points[i]}" >L.warm.$i 2>&1 && echo "rc 0" >>L.warm.$i || echo "rc $?" >>L.warm.$i
        diff ref/p2.$i p2.cold.$i
        diff ref/p2.$i p2.warm.$i
        diff ref/L.$i L.warm.$i
    done

    # the whole index: libdw's, one thread's and two threads' hold the same entries
    index_diff ref/cache/dwarf/$id.idx cold2/cache/dwarf/$id.idx
    rm -rf one && mkdir one
    STAP_INDEX_THREADS=1 SYSTEMTAP_DIR=$PWD/one "$STAP" -vv -p2 -r "$KVER" -e "probe ${probes[0]}" >one/out 2>one/err
    grep -q "^DWARF index of $V: .* read directly in" one/err
    index_diff ref/cache/dwarf/$id.idx one/cache/dwarf/$id.idx
    diff ref/out0 one/out

    # a module's (ET_REL, relocated by libdwfl) when its debuginfo is installed
    local ko
    ko=$(ls /usr/lib/debug/lib/modules/"$KVER"/kernel/net/sunrpc/sunrpc.ko 2>/dev/null || true)
    if [[ -n $ko ]]; then
        local mid
        mid=$(readelf -n "$ko" | sed -n 's/^ *Build ID: //p')
        rm -rf mref mraw && mkdir mref mraw
        STAP_INDEX_THREADS=0 SYSTEMTAP_DIR=$PWD/mref "$STAP" -p2 -r "$KVER" -e 'probe module("sunrpc").function("xprt_*") {}' >mref/out
        STAP_INDEX_THREADS=2 SYSTEMTAP_DIR=$PWD/mraw "$STAP" -vv -p2 -r "$KVER" -e 'probe module("sunrpc").function("xprt_*") {}' >mraw/out 2>mraw/err
        grep -q "^DWARF index of $ko: .* read directly by several threads in" mraw/err
        diff mref/out mraw/out
        index_diff mref/cache/dwarf/$mid.idx mraw/cache/dwarf/$mid.idx
    else
        echo "no sunrpc.ko debuginfo: the module part is left out"
    fi

    # an index of the previous format version is not taken: rebuilt
    printf '\x03' | dd of=cold2/cache/dwarf/$id.idx bs=1 seek=8 conv=notrunc status=none
    SYSTEMTAP_DIR=$PWD/cold2 "$STAP" -v -p2 -r "$KVER" -e "probe ${probes[0]}" >out 2>err
    grep -q "not an index of this version; rebuilding it" err
    grep -q "^DWARF index of $V: .* built and saved to" err
}
