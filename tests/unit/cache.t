# the pass-4 module cache: a miss stores, a hit reuses (same bytes, no kbuild), -D or script changes miss,
# --disable-cache, cache_mb_limit cleanup oldest first, concurrent stores, an unusable cache directory. Used by tests/run.
cost_s=55

ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# entries DIR: the module entries (.ko) of the cache under DIR
entries() { find "$1/cache" -mindepth 2 -name '*.ko' 2>/dev/null | sort; }

run() {
    source "$TOP/tests/lib/assert.sh"
    export TMPDIR=$PWD/tmp SYSTEMTAP_DIR=$PWD/sd
    mkdir -p "$TMPDIR"
    seed_stapdir "$SYSTEMTAP_DIR"
    local script='global n; probe kprobe.function("ksys_read") { n++ } probe end { println(n) }'
    local t0 miss_ms hit_ms ko name

    # a miss: kbuild runs, the module is stored as cache/HH/KEY.ko (HH = the key's first two digits)
    t0=$(date +%s%N)
    expect_ok -v -p4 -r "$KVER" -e "$script"
    miss_ms=$(ms_since "$t0")
    grep -q '^Pass 4: compiled C into a module in [0-9]*usr/[0-9]*sys/[0-9]*real ms\.$' stderr
    ko=$(sed -n 's/^Pass 4: cache miss; stored the module as //p' stderr)
    [[ $ko =~ ^$SYSTEMTAP_DIR/cache/([0-9a-f]{2})/([0-9a-f]{64})\.ko$ && ${BASH_REMATCH[2]} == "${BASH_REMATCH[1]}"* ]] ||
        { echo "unexpected entry '$ko'"; cat stderr; return 1; }
    [[ -f $ko && -f ${ko%.ko}.c ]]
    # the default module name is stap_ + 16 hex digits, the same for the same script and options
    name=$(cat stdout)
    [[ $name =~ ^stap_[0-9a-f]{16}\.ko$ ]] || { echo "module name '$name'"; return 1; }
    grep -q "#define STP_MODULE_NAME \"${name%.ko}\"" "${ko%.ko}.c"
    mv "$name" first.ko
    [[ -z $(ls -A "$TMPDIR") ]]

    # a hit: the same module, byte for byte, without kbuild, and much faster
    touch -d '2 hours ago' "$ko"
    t0=$(date +%s%N)
    expect_ok -v -p4 -r "$KVER" -e "$script"
    hit_ms=$(ms_since "$t0")
    grep -qF "Pass 4: using cached $ko in " stderr || { cat stderr; return 1; }
    not grep -q 'compiled C\|cache miss' stderr
    [[ $(cat stdout) == "$name" ]]
    cmp first.ko "$name"
    echo "miss $miss_ms ms, hit $hit_ms ms"
    (( hit_ms < 1000 && hit_ms * 2 < miss_ms ))
    # the hit made the entry the most recently used (cleanup removes the oldest first)
    (( $(date +%s) - $(stat -c %Y "$ko") < 600 ))
    [[ -z $(ls -A "$TMPDIR") ]]
    # without -v a hit says nothing; -k keeps the temp directory with the module in it
    expect_ok -k -p4 -r "$KVER" -e "$script"
    [[ $(grep -v '^Keeping temporary directory' stderr) == "" ]]
    cmp first.ko "$(ls -d "$TMPDIR"/stap*)/$name"
    rm -rf "${TMPDIR:?}"/*

    # a changed -D value, or a changed script, is another module: a miss, and another entry
    expect_ok -v -p4 -r "$KVER" -D MAXACTION=5000 -e "$script"
    grep -q '^Pass 4: cache miss; stored' stderr
    [[ $(cat stdout) != "$name" ]]
    expect_ok -v -p4 -r "$KVER" -D MAXACTION=5001 -e "$script"
    grep -q '^Pass 4: cache miss; stored' stderr
    expect_ok -v -p4 -r "$KVER" -e "${script/n++/n += 2}"
    grep -q '^Pass 4: cache miss; stored' stderr
    [[ $(entries "$SYSTEMTAP_DIR" | wc -l) == 4 ]]

    # --disable-cache: no lookup, no store, nothing written at all (not even the tapset index)
    local before
    before=$(find "$SYSTEMTAP_DIR" -printf '%p %s %T@\n' | sort)
    expect_ok -v -p4 -r "$KVER" --disable-cache -e "$script"
    grep -q '^Pass 4: compiled C into a module in ' stderr
    not grep -q 'cache' stderr
    [[ $(find "$SYSTEMTAP_DIR" -printf '%p %s %T@\n' | sort) == "$before" ]]
    SYSTEMTAP_DIR=$PWD/sd-off expect_ok -p2 --disable-cache -e "$script"
    [[ ! -e $PWD/sd-off ]]

    # the size limit: after a store, the least recently used entries go until the rest fits
    local lim=$PWD/sd-lim k1 k2 k3
    k1=aa$(printf '1%.0s' {1..62}) k2=bb$(printf '2%.0s' {1..62}) k3=aa$(printf '3%.0s' {1..62})
    mkdir -p "$lim/cache/aa" "$lim/cache/bb"
    seed_stapdir "$lim"
    truncate -s 1M "$lim/cache/aa/$k1.ko" "$lim/cache/bb/$k2.ko" "$lim/cache/aa/$k3.ko"
    echo 'C' | tee "$lim/cache/aa/$k1.c" "$lim/cache/bb/$k2.c" "$lim/cache/aa/$k3.c" >/dev/null
    touch -d '3 hours ago' "$lim/cache/aa/$k1.ko" "$lim/cache/bb/$k2.c"   # a .c's age does not count
    touch -d '2 hours ago' "$lim/cache/bb/$k2.ko" "$lim/cache/aa/$k1.c"
    touch -d '1 hour ago' "$lim/cache/aa/$k3.ko"
    echo x >"$lim/cache/aa/$k1.ko.123.tmp"; touch -d '2 hours ago' "$lim/cache/aa/$k1.ko.123.tmp"
    echo x >"$lim/cache/aa/$k3.ko.456.tmp"                                 # another run's, in progress
    echo 'keep me' >"$lim/cache/unrelated"
    echo 2 >"$lim/cache/cache_mb_limit"
    # 3 MB of old entries + the new one (about 0.5 MB) is over 2 MB: the two oldest go
    SYSTEMTAP_DIR=$lim expect_ok -v -p4 -r "$KVER" -e "$script"
    grep -q "^Pass 4: cache over its 2 MB limit ($lim/cache/cache_mb_limit): removed 2 oldest entries$" stderr ||
        { cat stderr; return 1; }
    ko=$(sed -n 's/^Pass 4: cache miss; stored the module as //p' stderr)
    [[ ! -e $lim/cache/aa/$k1.ko && ! -e $lim/cache/aa/$k1.c && ! -e $lim/cache/bb/$k2.ko && ! -e $lim/cache/bb/$k2.c ]]
    [[ -f $lim/cache/aa/$k3.ko && -f $lim/cache/aa/$k3.c && -f $ko && -f ${ko%.ko}.c ]]
    [[ ! -e $lim/cache/aa/$k1.ko.123.tmp && -f $lim/cache/aa/$k3.ko.456.tmp && -f $lim/cache/unrelated ]]
    ls "$lim"/cache/tapset-index-* >/dev/null
    # a limit of 0 keeps only the entry just stored
    echo 0 >"$lim/cache/cache_mb_limit"
    SYSTEMTAP_DIR=$lim expect_ok -v -p4 -r "$KVER" -D MAXACTION=5000 -e "$script"
    grep -q 'removed 2 oldest entries$' stderr
    [[ $(entries "$lim" | wc -l) == 1 && $(sed -n 's/^Pass 4: cache miss; stored the module as //p' stderr) == "$(entries "$lim")" ]]

    # two runs storing the same entry at once: both succeed, the entry is whole, no temp file is left
    local conc=$PWD/sd-conc pa pb
    seed_stapdir "$conc"
    mkdir -p a b
    (cd a && SYSTEMTAP_DIR=$conc "$STAP" -p4 -r "$KVER" -e "$script" >out 2>err) & pa=$!
    (cd b && SYSTEMTAP_DIR=$conc "$STAP" -p4 -r "$KVER" -e "$script" >out 2>err) & pb=$!
    wait "$pa" || { cat a/err; return 1; }
    wait "$pb" || { cat b/err; return 1; }
    [[ $(entries "$conc" | wc -l) == 1 && -z $(find "$conc/cache" -name '*.tmp') ]]
    SYSTEMTAP_DIR=$conc expect_ok -v -p4 -r "$KVER" -e "$script"
    grep -q '^Pass 4: using cached ' stderr
    cmp "$name" "$(entries "$conc")"
    cmp -s a/"$name" "$name" || cmp b/"$name" "$name"

    # a cache that cannot be created: the module is still built; only -v says it was not stored
    local ro=$PWD/sd-ro
    mkdir -p "$ro"
    echo 'not a directory' >"$ro/cache"
    SYSTEMTAP_DIR=$ro expect_ok -p4 -r "$KVER" -e "$script"
    [[ ! -s stderr && $(cat stdout) == "$name" && -f $name ]]
    SYSTEMTAP_DIR=$ro expect_ok -v -p4 -r "$KVER" -e "$script"
    grep -q "^Pass 4: cache miss; not stored: cannot create $ro/cache/..: Not a directory$" stderr || { cat stderr; return 1; }
    not grep -v '^Pass ' stderr
}
