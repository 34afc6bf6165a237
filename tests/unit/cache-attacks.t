# cache-attacks - the cache against another user who can write in it: planted temp-name symlinks, foreign or shared directories
# (or parents, never created in), others' symlinks on the way, root's $HOME, planted or symlinked KEY.ko entries, the cleanup,
# damaged DWARF index files; each refused (warning) or harmless. Used by tests/run.
timeout_s=900
cost_s=90

SCRIPT='global n; probe kernel.function("ksys_read") { n++ } probe end { println(n) }'
# the DWARF index attacks (6-9) use a small module's index: each of their runs builds one afresh, which for
# the kernel's costs about 2.5 s of CPU under ASan, for scsi_mod's (debuginfo from make deps) well under 1 s
MSCRIPT='probe module("scsi_mod").function("scsi_prepare_cmd") { }'

sum() { sha256sum "$1" | cut -d' ' -f1; }
# listing DIR: every path under DIR with its type, owner, mode, size and content checksum (what "nothing changed" compares)
listing() {
    local f
    find "$1" -printf '%p %y %u %m %s\n' | sort
    find "$1" -type f | sort | while IFS= read -r f; do echo "$f $(sum "$f")"; done
}
# p4 DIR ARGS...: stap -v -p4 of SCRIPT with SYSTEMTAP_DIR=DIR; the module is left as ./MODULE.ko
p4() {
    local dir=$1
    shift
    SYSTEMTAP_DIR=$dir expect_ok -v -p4 -r "$KVER" "$@" -e "$SCRIPT"
}
# compiled: the last run built the module (kbuild), it did not take it from the cache
compiled() {
    grep -q '^Pass 4: compiled C into a module in ' stderr && not grep -q '^Pass 4: using cached' stderr ||
        { echo "expected a fresh build:"; cat stderr; return 1; }
}
# warned TEXT: stderr has exactly one "stap: warning: ...TEXT" line with TEXT in it
warned() {
    [[ $(grep -c "^stap: warning: .*$1" stderr) == 1 ]] || { echo "expected one warning with '$1':"; cat stderr; return 1; }
}

run() {
    source "$TOP/tests/lib/assert.sh"
    need_kernel_dwarf
    export TMPDIR=$PWD/tmp
    # the kernel's DWARF index is among the files attacked: built by the reference run
    export STAP_DWARF_FASTPATH=0
    mkdir -p "$TMPDIR"
    local sd=$PWD/sd ko key name idx victim
    [[ -e /usr/lib/debug/lib/modules/$KVER/kernel/drivers/scsi/scsi_mod.ko ]] ||
        { echo "no scsi_mod debuginfo for $KVER (make deps)"; exit 77; }
    seed_stapdir "$sd"
    # the reference run: a trusted cache ends up with the module (HH/KEY.ko, .c), the tapset index
    # and the kernel's DWARF index
    p4 "$sd"
    ko=$(sed -n 's/^Pass 4: cache miss; stored the module as //p' stderr)
    key=$(basename "$ko" .ko)
    name=$(cat stdout)
    idx=$(ls "$sd"/cache/dwarf/*.idx)
    [[ -f $ko && -f $idx && -n $(ls "$sd"/cache/tapset-index-*) ]]
    not grep -q '^stap: warning' stderr
    cp "$name" good.ko
    # another module (other bytes, also ELF, all the cache checks of an entry's content): what an attacker
    # plants as KEY.ko
    { cat good.ko; echo "planted by another user"; } >planted.ko
    [[ $(sum planted.ko) != $(sum good.ko) ]]

    # 1. symlinks planted at every temp name the run will use (NAME.PID.tmp; exec keeps the shell's
    # pid): O_EXCL|O_NOFOLLOW refuses them, the files they point at stay as they were, the run
    # stores everything under other temp names
    echo "precious" >victim
    victim=$(sum victim)
    local tmps=("$ko" "${ko%.ko}.c" "$idx" "$(ls "$sd"/cache/tapset-index-*)")
    rm -f "${tmps[@]}"
    SYSTEMTAP_DIR=$sd KVER=$KVER SCRIPT=$SCRIPT bash -c '
        for f in "$@"; do ln -s "$PWD/victim" "$f.$$.tmp"; done
        exec "$STAP" -v -p4 -r "$KVER" -e "$SCRIPT" >stdout 2>stderr' links "${tmps[@]}" ||
        { echo "stap failed with symlinks at its temp names:"; cat stderr; return 1; }
    [[ $(sum victim) == "$victim" && $(cat victim) == precious ]]
    for f in "${tmps[@]}"; do
        [[ -f $f && ! -L $f ]] || { echo "$f not stored:"; cat stderr; ls -la "$(dirname "$f")"; return 1; }
        [[ $(find "$(dirname "$f")" -maxdepth 1 -name "$(basename "$f").*.tmp" -type l | wc -l) == 1 ]]
        [[ -z $(find "$(dirname "$f")" -maxdepth 1 -name "$(basename "$f").*.tmp" -type f) ]]
    done
    grep -q '^Pass 4: cache miss; stored the module as ' stderr
    not grep -q '^stap: warning' stderr
    find "$sd" -name '*.tmp' -type l -delete

    # 2. the cache directory owned by another user (a planted KEY.ko in it too): not used at all,
    # one warning, the module built afresh, nothing in the cache changed
    local foreign=$PWD/sd-foreign before
    cp -a "$sd" "$foreign"
    cp planted.ko "$foreign/cache/${key:0:2}/$key.ko"
    chown -R 65534:65534 "$foreign/cache"
    before=$(listing "$foreign")
    p4 "$foreign"
    warned "cache directory $foreign/cache is owned by uid 65534, not by uid 0: not using the cache"
    compiled
    [[ $(sum "$name") != $(sum planted.ko) ]]
    grep -q '^Pass 4: cache miss; not stored: ' stderr
    [[ $(listing "$foreign") == "$before" ]] || { echo "the foreign cache changed"; return 1; }

    # 3. a cache directory writable by group or others (mode 0777, 0775), or only the entry's HH
    # directory: the same. (0775 at -p2 of a script of no DWARF: the check that refuses the directory is
    # the 0777 one's, filecache.c's distrust(), only its words differ; nothing in the cache used or changed)
    local shared=$PWD/sd-shared mode
    for mode in 777 775; do
        rm -rf "$shared"
        cp -a "$sd" "$shared"
        cp planted.ko "$shared/cache/${key:0:2}/$key.ko"
        chmod "$mode" "$shared/cache"
        before=$(listing "$shared")
        if [[ $mode == 777 ]]; then
            p4 "$shared"
            warned "cache directory $shared/cache is writable by group and others (mode 0777): not using the cache"
            compiled
            [[ $(sum "$name") != $(sum planted.ko) ]]
        else
            SYSTEMTAP_DIR=$shared expect_ok -vv -p2 -r "$KVER" -e 'probe begin { exit() }'
            warned "cache directory $shared/cache is writable by group (mode 0775): not using the cache"
            grep -q '^Tapset index: built from ' stderr || { cat stderr; return 1; }
        fi
        [[ $(listing "$shared") == "$before" ]]
    done
    chmod 755 "$shared/cache"
    chmod o+w "$shared/cache/${key:0:2}"
    p4 "$shared"
    warned "cache directory $shared/cache/${key:0:2} is writable by others (mode 0757): not using the cache"
    compiled
    [[ $(sum "$name") != $(sum planted.ko) && $(sum "$shared/cache/${key:0:2}/$key.ko") == $(sum planted.ko) ]]

    # 4. a planted KEY.ko owned by another user (or group-writable) in a cache of ours: not used;
    # the rebuilt module replaces it
    local entry=$sd/cache/${key:0:2}/$key.ko
    cp planted.ko "$entry"
    chown 65534:65534 "$entry"
    p4 "$sd"
    warned "cache entry $entry is owned by uid 65534, not by uid 0: not used"
    compiled
    [[ $(sum "$name") != $(sum planted.ko) ]]
    grep -q "^Pass 4: cache miss; stored the module as $entry\$" stderr
    [[ $(stat -c %u "$entry") == 0 && $(sum "$entry") == $(sum "$name") ]]
    cp planted.ko "$entry"
    chmod 664 "$entry"
    p4 "$sd"
    warned "cache entry $entry is writable by group (mode 0664): not used"
    compiled
    [[ $(sum "$name") != $(sum planted.ko) && $(stat -c %a "$entry") == 644 ]]
    # and a hit still works after all that: the entry is ours again
    p4 "$sd"
    grep -q "^Pass 4: using cached $entry" stderr
    cmp "$name" "$entry"

    # 5. an entry that is a symlink (to a module of the attacker's, or to the good one): not used,
    # the file it points at is left alone
    cp planted.ko planted-target.ko
    ln -sf "$PWD/planted-target.ko" "$entry"
    p4 "$sd"
    warned "cache entry $entry is a symbolic link: not used"
    compiled
    [[ $(sum "$name") != $(sum planted.ko) && $(sum planted-target.ko) == $(sum planted.ko) && ! -L $entry ]]

    # 6. DWARF index files (scsi_mod's from here on, see MSCRIPT): damaged ones (an offset that wraps past
    # 2^64 when its table's length is added, a string offset past the table, a truncated file) are treated
    # as absent: a warning, rebuilt, the same file as a good build
    local bad
    SYSTEMTAP_DIR=$sd expect_ok -v -p2 -r "$KVER" -e "$MSCRIPT"
    idx=$(sed -n 's/^DWARF index of .*scsi_mod.ko: .*; built and saved to \(.*\.idx\) in .*/\1/p' stderr)
    [[ -f $idx ]] || { echo "no scsi_mod index saved:"; cat stderr; return 1; }
    cp "$idx" good.idx
    for bad in wrap trunc name; do
        cp good.idx "$idx"
        case $bad in
        wrap) printf '\xe0\xff\xff\xff\xff\xff\xff\xff' | dd of="$idx" bs=1 seek=40 conv=notrunc status=none ;;
        trunc) truncate -s -1 "$idx" ;;
        name) printf '\xff\xff\xff\x7f' | dd of="$idx" bs=1 seek=$(( $(od -A n -t u8 -j 40 -N 8 good.idx) )) \
                  conv=notrunc status=none ;;
        esac
        SYSTEMTAP_DIR=$sd expect_ok -v -p2 -r "$KVER" -e "$MSCRIPT"
        case $bad in
        wrap) warned "DWARF index $idx: its entry table is out of bounds; rebuilding it" ;;
        trunc) warned "DWARF index $idx: its size is not the one its header records; rebuilding it" ;;
        name) warned "DWARF index $idx: an entry's name or file is out of bounds; rebuilding it" ;;
        esac
        grep -q "^DWARF index of .*; built and saved to $idx in " stderr
        grep -q '^module("scsi_mod").function("scsi_prepare_cmd@drivers/scsi/scsi_lib.c:[0-9]*")' stdout || { cat stdout; return 1; }
        cmp "$idx" good.idx
    done
    # a symlinked index, and one owned by another user: refused the same way
    ln -sf "$PWD/good.idx" "$idx"
    SYSTEMTAP_DIR=$sd expect_ok -v -p2 -r "$KVER" -e "$MSCRIPT"
    warned "cache entry $idx is a symbolic link: not used"
    [[ -f $idx && ! -L $idx ]] && cmp "$idx" good.idx
    chown 65534 "$idx"
    SYSTEMTAP_DIR=$sd expect_ok -v -p2 -r "$KVER" -e "$MSCRIPT"
    warned "cache entry $idx is owned by uid 65534, not by uid 0: not used"
    [[ $(stat -c %u "$idx") == 0 ]] && cmp "$idx" good.idx
    SYSTEMTAP_DIR=$sd expect_ok -v -p2 -r "$KVER" -e "$MSCRIPT"
    grep -q "^DWARF index of .*; loaded from $idx in " stderr
    not grep -q '^stap: warning' stderr

    # 7. a cache of ours inside a directory another user owns, or one everybody may write to without
    # the sticky bit: they could swap it for anything, so it is not used; inside a sticky one (like
    # /tmp) it is
    mkdir -p evil sticky open
    chown 65534 evil
    chmod 1777 sticky
    chmod 777 open
    SYSTEMTAP_DIR=$PWD/evil/sd expect_ok -v -p2 -r "$KVER" -e "$MSCRIPT"
    warned "cache directory $PWD/evil/sd/cache is inside $PWD/evil, which is owned by uid 65534: not using the cache"
    grep -q "^DWARF index of .*; built (not saved) for $PWD/evil/sd/cache/dwarf/" stderr
    # nothing made in there either: root checks a directory before it creates anything inside it
    [[ -z $(ls -A evil) ]] || { echo "created inside a directory of uid 65534:"; ls -lR evil; return 1; }
    SYSTEMTAP_DIR=$PWD/open/sd expect_ok -v -p2 -r "$KVER" -e "$MSCRIPT"
    warned "cache directory $PWD/open/sd/cache is inside $PWD/open, which is writable by group or others (mode 0777): not using the cache"
    [[ -z $(find evil open -type f) ]]
    SYSTEMTAP_DIR=$PWD/sticky/sd expect_ok -v -p2 -r "$KVER" -e "$MSCRIPT"
    not grep -q '^stap: warning' stderr
    grep -q "^DWARF index of .*; built and saved to $PWD/sticky/sd/cache/dwarf/" stderr
    cmp "$PWD"/sticky/sd/cache/dwarf/*.idx good.idx

    # 8. symbolic links on the way to the cache: another user's is not followed (they could point it
    # anywhere), nothing is made where it points; root's own is
    local real
    real=$(pwd -P)
    mkdir -p target
    ln -s target theirs-link
    chown -h 65534 theirs-link
    SYSTEMTAP_DIR=$real/theirs-link/sd expect_ok -v -p2 -r "$KVER" -e "$MSCRIPT"
    warned "cache directory $real/theirs-link/sd/cache is reached through the symbolic link $real/theirs-link, which is owned by uid 65534: not using the cache"
    [[ -z $(ls -A target) ]]
    mkdir -p sticky/real
    setpriv --reuid=65534 --regid=65534 --clear-groups ln -s real sticky/theirs
    SYSTEMTAP_DIR=$real/sticky/theirs/sd expect_ok -v -p2 -r "$KVER" -e "$MSCRIPT"
    warned "cache directory $real/sticky/theirs/sd/cache is reached through the symbolic link $real/sticky/theirs, which is owned by uid 65534"
    [[ -z $(ls -A sticky/real) ]]
    ln -s target ours-link
    SYSTEMTAP_DIR=$real/ours-link/sd expect_ok -v -p2 -r "$KVER" -e "$MSCRIPT"
    not grep -q '^stap: warning' stderr
    grep -q "^DWARF index of .*; built and saved to $real/ours-link/sd/cache/dwarf/" stderr
    [[ -n $(ls target/sd/cache/dwarf/*.idx) ]]

    # 9. root's cache is in root's home from the password database, never in a $HOME of another
    # user's left in root's environment (a tmpfs over root's home: the real one is not touched)
    local home
    home=$(getent passwd 0 | cut -d: -f6)
    mkdir -p userhome
    chown 65534 userhome
    SCRIPT=$MSCRIPT KVER=$KVER STAP=$STAP unshare -m --propagation private bash -ec '
        mount -t tmpfs stapcache "$1"
        env -u SYSTEMTAP_DIR HOME="$2/userhome" "$STAP" -v -p2 -r "$KVER" -e "$SCRIPT" >home.out 2>home.err
        ls -A "$1/.systemtap/cache" >home.ls' home "$home" "$real" || { cat home.err; return 1; }
    not grep -q '^stap: warning' home.err
    grep -q "^DWARF index of .*; built and saved to $home/.systemtap/cache/dwarf/" home.err
    grep -q '^tapset-index-' home.ls
    [[ -z $(ls -A userhome) ]]

    # 10. the cleanup works from the checked directory's fd: over the limit, the oldest entry goes; an
    # HH that is a symbolic link (to a directory with entry-like files) and a symlinked
    # cache_mb_limit are ignored, what they point at left alone
    local cl=$PWD/sd-clean oldko hh
    cp -a "$sd" "$cl"
    rm -rf "$cl"/cache/??
    mkdir -p "$cl/cache/aa" victimdir
    oldko=$cl/cache/aa/$(printf 'a%.0s' {1..64}).ko
    cp planted.ko "$oldko"
    touch -d '2000-01-01' "$oldko"
    cp planted.ko "victimdir/$(printf 'b%.0s' {1..64}).ko"
    touch -d '2000-01-01' victimdir/*.ko
    ln -s "$PWD/victimdir" "$cl/cache/bb"
    echo 0 >limit0
    ln -s "$PWD/limit0" "$cl/cache/cache_mb_limit"
    before=$(listing victimdir)
    p4 "$cl"
    compiled
    not grep -q 'removed .* oldest entr' stderr
    [[ -f $oldko ]]
    rm "$cl/cache/cache_mb_limit"
    echo 0 >"$cl/cache/cache_mb_limit"
    rm -f "$cl"/cache/"${key:0:2}"/"$key".ko
    p4 "$cl"
    grep -q "^Pass 4: cache over its 0 MB limit ($cl/cache/cache_mb_limit): removed 1 oldest entry" stderr
    [[ ! -e $oldko && -f $cl/cache/${key:0:2}/$key.ko ]]
    [[ $(listing victimdir) == "$before" && -L $cl/cache/bb ]]
}
