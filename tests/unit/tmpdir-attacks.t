# tmpdir-attacks - root's pass-4 work against another user: TMPDIR in a directory the user controls (not used: /tmp
# instead), SYSTEMTAP_TAPSET / SYSTEMTAP_RUNTIME / STAP_DEBUGINFO_PATH / test hooks naming what the
# user controls (refused), a module changed between kbuild and its signing (refused, nothing of it kept or cached),
# the temp directory removed without following a symbolic link planted in it. Each with its control. Used by tests/run.
timeout_s=600
cost_s=20

SCRIPT='probe begin { println("tmpdir hello"); exit() }'
NOBODY=65534

# kept_dir: the temporary directory -k named in stderr
kept_dir() { sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p' stderr; }
# warned TEXT: stderr has exactly one "stap: warning: ...TEXT" line
warned() {
    [[ $(grep -c "^stap: warning: .*$1" stderr) == 1 ]] || { echo "expected one warning with '$1':"; cat stderr; return 1; }
}
# refused VAR VALUE WHY ARGS...: as root, VAR=VALUE makes stap ARGS fail with the one-line refusal naming WHY
refused() {
    local var=$1 value=$2 why=$3
    shift 3
    env "$var=$value" "$STAP" "$@" >stdout 2>stderr && { echo "$var=$value: stap succeeded"; cat stderr; return 1; }
    [[ $(wc -l <stderr) == 1 ]] &&
        grep -qxF "stap: error: as root, $var=$value is refused: it $why; unset it, or point it at a copy only root can change" stderr ||
        { echo "$var=$value: expected the refusal '$why', got:"; cat stderr; return 1; }
}

# the TMPDIR walk: a directory another user owns (or one inside it), or one others may write, is not used: a
# warning, and the work happens in /tmp, nothing in theirs; a directory of root's, 0700, is used
tmpdir_cases() {
    local user=$PWD/user kept
    mkdir -p user/sub groupw rootdir
    chown $NOBODY user user/sub
    chmod 0775 groupw
    chmod 0700 rootdir
    TMPDIR=$user expect_ok -k -p4 -r "$KVER" -m tmpmod -e "$SCRIPT"
    warned "TMPDIR $user is owned by uid $NOBODY: root does not work there; using /tmp"
    kept=$(kept_dir)
    [[ $kept == /tmp/stap?????? && -f $kept/tmpmod.c && -f $kept/Kbuild ]] || { cat stderr; return 1; }
    [[ $(stat -c '%u %a' "$kept") == "0 700" ]]
    rm -rf "$kept"
    [[ -z $(find user -mindepth 1 -not -name sub) && -z $(ls -A user/sub) ]]
    TMPDIR=$user/sub expect_ok -p4 -r "$KVER" -m tmpmod -e "$SCRIPT"
    warned "TMPDIR $user/sub is inside $user, which is owned by uid $NOBODY: root does not work there; using /tmp"
    [[ -z $(ls -A user/sub) ]]
    TMPDIR=$PWD/groupw expect_ok -p4 -r "$KVER" -m tmpmod -e "$SCRIPT"
    warned "TMPDIR $PWD/groupw is writable by group or others (mode 0775): root does not work there; using /tmp"
    [[ -z $(ls -A groupw) ]]
    # control: root's own 0700 directory is used, no warning; the temp directory goes at the end
    TMPDIR=$PWD/rootdir expect_ok -k -p4 -r "$KVER" -m tmpmod -e "$SCRIPT"
    [[ $(kept_dir) == "$PWD"/rootdir/stap?????? ]] && not grep -q warning stderr || { cat stderr; return 1; }
    rm -rf rootdir/stap*
    TMPDIR=$PWD/rootdir expect_ok -p4 -r "$KVER" -m tmpmod -e "$SCRIPT"
    [[ -z $(ls -A rootdir) ]] && not grep -q warning stderr
    # not root: TMPDIR is the user's own business, used as before
    cp -r "$SYSTEMTAP_DIR" "$user/sd"   # root's runs' cache: a hit, no kbuild
    chown -R $NOBODY "$user/sd"
    (cd user && TMPDIR=$user SYSTEMTAP_DIR=$user/sd setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
        "$STAP" -k -p4 -r "$KVER" -m tmpmod -e "$SCRIPT" >/dev/null 2>../stderr) || { cat stderr; return 1; }
    [[ $(kept_dir) == "$user"/stap?????? ]] && not grep -q warning stderr || { cat stderr; return 1; }
}

# what root reads or runs, named by the environment: refused when another user controls it, a root-owned copy taken
env_cases() {
    local user=$PWD/envuser good=$PWD/envroot
    mkdir -p "$user" "$good/tapset" "$good/dbg" "$good/dbgd" "$good/bin"
    cp -r "$TOP/tapset/." "$user/tapset"
    cp -r "$TOP/runtime/." "$user/runtime"
    cp -r "$TOP/tapset/." "$good/tapset"
    cp -r "$TOP/runtime/." "$good/runtime"
    mkdir -p "$user/dbg" "$user/dbgd"
    printf '#!/bin/sh\nexit 0\n' >"$good/bin/fake-staprun"
    cp "$good/bin/fake-staprun" "$user/fake-staprun"
    chmod 755 "$good/bin/fake-staprun" "$user/fake-staprun"
    chown -R $NOBODY "$user"
    refused SYSTEMTAP_TAPSET "$user/tapset" "is inside $user, which is owned by uid $NOBODY" -p2 -e "$SCRIPT"
    refused SYSTEMTAP_RUNTIME "$user/runtime" "is inside $user, which is owned by uid $NOBODY" -p2 -e "$SCRIPT"
    refused STAP_DEBUGINFO_PATH "$user/dbg" "is inside $user, which is owned by uid $NOBODY" -p2 -e "$SCRIPT"
    refused STAP_REMOTE_MODULES "$user" "is owned by uid $NOBODY" -p2 -e "$SCRIPT"
    refused STAP_REMOTE_STAPRUN "$user/fake-staprun" "is inside $user, which is owned by uid $NOBODY" -p2 -e "$SCRIPT"
    refused STAP_REMOTE_STAPRUN fake-staprun "is not an absolute path" -p2 -e "$SCRIPT"
    refused SYSTEMTAP_TAPSET "$user/tapset/../../envroot/nothere" "is inside $user, which is owned by uid $NOBODY" -p2 -e "$SCRIPT"
    # inside a directory of root's: one file of the user's, a group-writable one, a symbolic link to the user's
    chown $NOBODY "$good/tapset/linux/ioblock.stp"
    refused SYSTEMTAP_TAPSET "$good/tapset" "holds $good/tapset/linux/ioblock.stp, which is owned by uid $NOBODY" -p2 -e "$SCRIPT"
    chown 0 "$good/tapset/linux/ioblock.stp"
    chmod g+w "$good/tapset/linux"
    refused SYSTEMTAP_TAPSET "$good/tapset" "holds $good/tapset/linux, which is writable by group or others (mode 0775)" -p2 -e "$SCRIPT"
    chmod g-w "$good/tapset/linux"
    ln -s "$user/tapset/linux/ioblock.stp" "$good/tapset/evil.stp"
    refused SYSTEMTAP_TAPSET "$good/tapset" "holds the symbolic link $good/tapset/evil.stp to $user/tapset/linux/ioblock.stp, which is inside $user, which is owned by uid $NOBODY" -p2 -e "$SCRIPT"
    rm "$good/tapset/evil.stp"
    # controls: root's copies (and a missing directory inside root's) are taken
    SYSTEMTAP_TAPSET=$good/tapset expect_ok -p2 -e "$SCRIPT"
    SYSTEMTAP_RUNTIME=$good/runtime expect_ok -p2 -e "$SCRIPT"
    STAP_DEBUGINFO_PATH=$good/dbg expect_ok -p2 -e "$SCRIPT"
    STAP_DEBUGINFO_PATH=$good/none expect_ok -p2 -e "$SCRIPT"
    DEBUGINFOD_CACHE_PATH=$good/dbgd expect_ok -p2 -e "$SCRIPT"
    STAP_REMOTE_STAPRUN=$good/bin/fake-staprun STAP_REMOTE_MODULES=$good expect_ok -p2 -e "$SCRIPT"
    # not root: the user's own directories, as before
    SYSTEMTAP_DIR=$user/sd SYSTEMTAP_TAPSET=$user/tapset setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$STAP" -p2 -e "$SCRIPT" >/dev/null 2>stderr ||
        { cat stderr; return 1; }
}

# a kernel build tree whose scripts/sign-file is a wrapper: it plants symbolic links in the temporary directory
# (to a file and a directory outside), and with $tree/evil it writes EVILEVIL into the module before or after
# signing it (evil says which).  The tree's scripts/ is a directory of its own (links to the real one's entries):
# the system's scripts/ is never written.
make_tree() {
    local orig l real e
    orig=$(readlink -f "/lib/modules/$KVER/build")
    tree=$PWD/tree
    cp -a "$orig" "$tree"
    for l in $(find "$tree" -maxdepth 1 -type l -printf '%f\n'); do ln -sfn "$(readlink -f "$orig/$l")" "$tree/$l"; done
    if [[ -L $tree/scripts ]]; then
        real=$(readlink -f "$tree/scripts")
        rm "$tree/scripts"
        mkdir "$tree/scripts"
        for e in "$real"/* "$real"/.[!.]*; do [[ -e $e ]] && ln -s "$e" "$tree/scripts/"; done
    fi
    mv "$tree/scripts/sign-file" "$tree/scripts/sign-file.real"   # a link, or the copy's own file
    [[ ! -L $tree/scripts && ! -e $tree/scripts/sign-file && ! -L $tree/scripts/sign-file ]] ||
        { echo "the tree's scripts/ is not its own"; return 1; }
    cat >"$tree/scripts/sign-file" <<EOF
#!/bin/bash
d=\$(dirname "\$4")
ln -s "$PWD/victim" "\$d/planted-file"
ln -s "$PWD/victimdir" "\$d/planted-dir"
mkdir "\$d/sub" && ln -s "$PWD/victimdir" "\$d/sub/planted-dir"
tamper() { printf EVILEVIL | dd of="\$4" bs=1 seek=4096 conv=notrunc status=none; }
[[ \$(cat "$tree/evil" 2>/dev/null) == before ]] && tamper "\$@"
"$tree/scripts/sign-file.real" "\$@" || exit
[[ \$(cat "$tree/evil" 2>/dev/null) == after ]] && tamper "\$@"
exit 0
EOF
    chmod 755 "$tree/scripts/sign-file"
}

# the module changed between kbuild and signing: refused, nothing of it kept, signed or cached; the temp directory
# removed with the links planted in it, not what they name
swap_cases() {
    local entry
    export SYSTEMTAP_DIR=$PWD/sd TMPDIR=$PWD/tmp
    mkdir -p tmp victimdir
    echo keep >victim
    echo keep >victimdir/file
    seed_stapdir "$SYSTEMTAP_DIR"
    expect_ok --make-signing-key
    make_tree
    echo before >"$tree/evil"
    refused_swap() {
        "$STAP" -v -p4 -r "$tree" -m swapped --sign-module -e "$SCRIPT" >stdout 2>stderr &&
            { echo "a module changed before signing was taken:"; cat stderr; return 1; }
        grep -qF "stap: error: the module $TMPDIR/" stderr &&
            grep -qF "/swapped.ko is not the one pass 4 built (its SHA-256 changed): not $1; something else wrote in the temporary directory, run stap again" stderr ||
            { echo "expected the refusal ($1):"; cat stderr; return 1; }
        [[ ! -e swapped.ko && -z $(grep -rl EVILEVIL "$SYSTEMTAP_DIR") && -z $(ls -A tmp) ]] ||
            { echo "the changed module was kept or cached, or the temp directory left:"; ls -A . tmp; grep -rl EVILEVIL "$SYSTEMTAP_DIR"; return 1; }
    }
    refused_swap "taking it as signed (its code changed while sign-file ran)"
    echo after >"$tree/evil"
    refused_swap "taking it as signed (its code changed while sign-file ran)"
    # the links planted in the temp directory went, what they named did not
    [[ $(cat victim) == keep && $(cat victimdir/file) == keep ]] || { echo "removal followed a planted link"; return 1; }
    # control: the same tree with sign-file honest: the cached module (kbuild's, never the changed one) signed and kept
    rm "$tree/evil"
    expect_ok -v -p4 -r "$tree" -m swapped --sign-module -e "$SCRIPT"
    grep -q "^Pass 4: using cached " stderr && grep -qF "Pass 4: signed the module with $SYSTEMTAP_DIR/signing_key.priv" stderr ||
        { cat stderr; return 1; }
    [[ -n $(modinfo -F signer swapped.ko) ]] && not grep -q EVILEVIL swapped.ko
    entry=$(sed -n 's/^Pass 4: using cached //p' stderr | sed 's/ in .*//')
    [[ -n $(modinfo -F signer "$entry") ]] && not grep -q EVILEVIL "$entry"
    [[ -z $(ls -A tmp) && $(cat victim) == keep && $(cat victimdir/file) == keep ]]
    # the kept module is written as staprun's -o writes a file: never through a symbolic link planted in its place
    rm swapped.ko
    ln -s victim swapped.ko
    "$STAP" -p4 -r "$tree" -m swapped --sign-module -e "$SCRIPT" >stdout 2>stderr &&
        { echo "-p4 -m swapped wrote through a planted swapped.ko"; return 1; }
    grep -qxF "stap: error: not writing swapped.ko: it is a symbolic link" stderr || { cat stderr; return 1; }
    [[ -L swapped.ko && $(cat victim) == keep ]] || { echo "the planted link's target changed"; return 1; }
}

run() {
    source "$TOP/tests/lib/assert.sh"
    [[ $(id -u) == 0 ]] || return 77
    # the controls need a case directory only root controls, as the trust walk sees it
    local d=$PWD
    while [[ $d != / ]]; do
        # (as the walk: a sticky directory others may write, /tmp, holds the way on)
        [[ $(stat -c %u "$d") == 0 && ( $(( 0$(stat -c %a "$d") & 022 )) == 0 || $(( 0$(stat -c %a "$d") & 01000 )) != 0 ) ]] ||
            { echo "skipped: $d is not root's alone, so no directory under it passes the trust walk"; return 77; }
        d=$(dirname "$d")
    done
    export SYSTEMTAP_DIR=$PWD/sd-tmp
    seed_stapdir "$SYSTEMTAP_DIR"
    tmpdir_cases
    env_cases
    swap_cases
}
