# kernel feature tests (translator/compile/kfeatures.c for runtime/core/compat.h): compiled once per build tree and
# cached, a changed tree tests again; runtime modules build with -p4 for every installed kernel. Used by tests/run.
timeout_s=1200
cost_s=45

# the top-level feature kbuild runs logged by the make wrapper (kfeatures.c runs make -k -s -jN -C TREE M=DIR)
feature_makes() { grep -c '^-k -s -j[0-9]* -C .* M=.*/kfeatures ' make.log || true; }

# uprobe_api TREE: what the tree's <linux/uprobes.h> says uprobe_register() returns (1: struct uprobe *)
uprobe_api() {
    local common
    common=$(sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$1/Makefile")
    grep -q 'struct uprobe \*uprobe_register(' "${common:-$1}/include/linux/uprobes.h" && echo 1 || echo 0
}

# build_for KVER: the module of one kernel: a runtime script (regex in syscall probes) and uprobe, process,
# timer and kprobe probes, in one module (one kbuild a kernel, not one a script: the same runtime code compiled)
build_for() {
    local k=$1 tag=${1//[^a-z0-9]/_}
    "$STAP" -v -p4 -r "$k" -m "km_$tag" both.stp "$PWD/uprog" >"out.$k" 2>"err.$k"
}

run() {
    source "$TOP/tests/lib/assert.sh"
    local shared_dir=$SYSTEMTAP_DIR tree t0 ms k kvers flags
    export TMPDIR=$PWD/tmp SYSTEMTAP_DIR=$PWD/sd
    mkdir -p "$TMPDIR" bin
    printf '#!/bin/sh\necho "$*" >>%s/make.log\nexec /usr/bin/make "$@"\n' "$PWD" >bin/make
    chmod +x bin/make
    touch make.log
    export PATH=$PWD/bin:$PATH
    tree=$(readlink -f "/lib/modules/$KVER/build")

    # cold: one kbuild run for the tests, the answers stored as cache/kfeatures-KEY and given to the module
    expect_ok -v -p4 -r "$KVER" -e 'probe begin { exit() }'
    flags=$(sed -n 's/^Pass 4: kernel feature tests compiled in [0-9]* ms: //p' stderr)
    [[ $flags == "-DSTP_HAVE_UPROBE_REGISTER_PTR=$(uprobe_api "$tree")" ]] || { cat stderr; return 1; }
    [[ $(feature_makes) == 1 ]]
    ls "$PWD"/sd/cache/kfeatures-* >entries
    [[ $(wc -l <entries) == 1 && $(cat "$(cat entries)") == "$flags" ]]

    # cached: another module (a cache miss for it) takes the stored answers, no feature kbuild
    expect_ok -v -p4 -r "$KVER" -e 'probe begin { println("x") exit() }'
    ms=$(sed -n "s|^Pass 4: kernel feature tests cached in $(cat entries) (\([0-9]*\) ms): $flags\$|\1|p" stderr)
    [[ -n $ms ]] || { cat stderr; return 1; }
    echo "feature tests: cached in $ms ms"
    [[ $(feature_makes) == 1 ]] && (( ms < 1000 ))
    # a run that hits both caches runs no make at all
    : >make.log
    t0=$(date +%s%N)
    expect_ok -p4 -r "$KVER" -e 'probe begin { exit() }'
    echo "a run hitting both caches: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
    [[ ! -s make.log ]]

    # a changed build tree (a copy whose .config differs): tested again, a second entry
    cp -a "$tree" tree
    for k in scripts tools; do
        [[ -L tree/$k ]] && ln -sfn "$(readlink -f "$tree/$k")" "tree/$k"
    done
    echo '# changed' >>tree/.config
    expect_ok -v -p4 -r "$PWD/tree" -e 'probe begin { exit() }'
    grep -q "^Pass 4: kernel feature tests compiled in [0-9]* ms: $flags\$" stderr || { cat stderr; return 1; }
    [[ $(feature_makes) == 1 && $(ls sd/cache/kfeatures-* | wc -l) == 2 ]]

    # every installed kernel (the default one at least): its modules build, its answers match its headers;
    # the tests' shared cache, so that a rerun costs nothing
    export SYSTEMTAP_DIR=$shared_dir PATH=${PATH#"$PWD/bin:"}
    printf '#include <stdio.h>\nint add(int a, int b) { return a + b; }\nint main(void) { printf("%%d\\n", add(1, 2)); return 0; }\n' >uprog.c
    gcc -g -O0 -o uprog uprog.c
    { cat "$TOP/tests/runtime/regex-kprobe.stp"; echo '
global n
probe timer.ms(100) { n["t"]++ }
probe process.begin { n["pb"]++ }
probe process(@1).function("add") { printf("%d %d\n", $a, $b) }
probe process(@1).function("add").return { println($return) }
probe kprobe.function("ksys_read") { n[execname()]++ }
probe end { foreach (k in n) println(k, n[k]) }'; } >both.stp
    kvers=$("$TOP/scripts/guest-kver.sh" --all)
    grep -qxF "$KVER" <<<"$kvers"
    for k in $kvers; do
        build_for "$k" &
    done
    wait
    for k in $kvers; do
        [[ -f km_${k//[^a-z0-9]/_}.ko ]] || { echo "$k:"; cat "err.$k"; return 1; }
        grep -q "^Pass 4: kernel feature tests .*: -DSTP_HAVE_UPROBE_REGISTER_PTR=$(uprobe_api "$(readlink -f "/lib/modules/$k/build")")\$" \
            "err.$k" || { echo "$k:"; cat "err.$k"; return 1; }
        echo "$k: $(grep -o 'kernel feature tests [a-z]*' "err.$k" | head -n 1), modules built"
    done
}
