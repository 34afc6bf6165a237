# staprun-checks: staprun's refusals before loading: modules not stap's or for another kernel, bad names, broken ELF, callers
# Used by tests/run (unit/ and asan/staprun-checks); no kernel needed: every case ends before finit_module (this host cannot load).

timeout_s=400
cost_s=30

# refused WANT ARGS...: `staprun ARGS` exits 1, prints nothing on stdout, and its stderr is
# "staprun: ..." lines, one of them containing WANT.
refused() {
    local want=$1 rc=0
    shift
    "$STAPRUN" "$@" >out 2>err || rc=$?
    if [[ $rc != 1 || -s out ]] || ! grep -qF -- "$want" err || grep -qv '^staprun: ' err; then
        echo "staprun $* gave exit $rc, wanted 1 and \"$want\":"; cat out err; return 1
    fi
}

# as_user SETPRIV_ARGS -- WANT ARGS...: refused, run as uid/gid 65534 with setpriv SETPRIV_ARGS.
as_user() {
    local -a who=()
    while [[ $1 != -- ]]; do who+=("$1"); shift; done
    shift
    local want=$1 rc=0
    shift
    setpriv --reuid=65534 --regid=65534 "${who[@]}" "$STAPRUN" "$@" >out 2>err || rc=$?
    if [[ $rc != 1 ]] || ! grep -qF -- "$want" err; then
        echo "as uid 65534 (${who[*]}): staprun $* gave exit $rc, wanted 1 and \"$want\":"; cat out err
        return 1
    fi
}

# fuzz IN DIR: broken variants of the module IN, DIR/N/sc_ok.ko: truncated at chosen and random
# places, random bytes in its ELF header, section headers, section names and .modinfo, huge offsets and
# sizes, random files with and without an ELF header (fixed seed: the same files every run).
fuzz() {
    mkdir -p "$2"
    perl -e '
        use strict;
        my ($in, $dir) = @ARGV;
        open(my $f, "<:raw", $in) or die; local $/; my $d = <$f>;
        my $size = length($d);
        my ($shoff, $shnum, $shstrndx) = (unpack("Q<", substr($d, 40, 8)),
            unpack("v", substr($d, 60, 2)), unpack("v", substr($d, 62, 2)));
        my $stroff = unpack("Q<", substr($d, $shoff + 64 * $shstrndx + 24, 8));
        my ($mioff, $misize);
        for my $s (1 .. $shnum - 1) {
            my ($name, $off, $sz) = (unpack("V", substr($d, $shoff + 64 * $s, 4)),
                unpack("Q<", substr($d, $shoff + 64 * $s + 24, 8)),
                unpack("Q<", substr($d, $shoff + 64 * $s + 32, 8)));
            ($mioff, $misize) = ($off, $sz) if substr($d, $stroff + $name, 9) eq ".modinfo\0";
        }
        defined $mioff or die "no .modinfo";
        my $n = 0;
        # each in its own directory, named as the module, to get past the name check
        my $put = sub { mkdir("$dir/$n"); open(my $o, ">:raw", "$dir/" . $n++ . "/sc_ok.ko") or die;
                        print $o $_[0]; };
        srand(4242);
        for my $len (0, 1, 4, 16, 63, 64, 65, 200, $shoff - 1, $shoff, $shoff + 1, $shoff + 100,
                     $size - 64, $size - 1, int($size / 2), map { int(rand($size)) } 1 .. 20) {
            $put->(substr($d, 0, $len));
        }
        for my $i (1 .. 200) {
            my $m = $d;
            for (1 .. 1 + int(rand(8))) {
                my $r = rand();
                my $at = $r < 0.2 ? int(rand(64))
                       : $r < 0.6 ? $shoff + int(rand(64 * $shnum))
                       : $r < 0.75 ? $stroff + int(rand(200))
                       : $mioff + int(rand($misize));
                substr($m, $at, 1) = chr(int(rand(256))) if $at < $size;
            }
            $put->($m);
        }
        # e_shoff, e_shnum with extended numbering, e_shstrndx, and every section s offset and size
        for my $v (0xffffffffffffff00, 0x7fffffffffffffff, $size, $size - 63) {
            my $m = $d; substr($m, 40, 8) = pack("Q<", $v); $put->($m);
        }
        for my $v (0, 0xffff) {
            my $m = $d; substr($m, 60, 2) = pack("v", $v); $put->($m);
            $m = $d; substr($m, 62, 2) = pack("v", $v); $put->($m);
        }
        { my $m = $d; substr($m, 60, 4) = pack("vv", 0, 0xffff);
          substr($m, $shoff + 32, 8) = pack("Q<", 0xffffffff);      # section 0: sh_size = count
          substr($m, $shoff + 40, 4) = pack("V", 0xfffffff0); $put->($m); }
        for my $s (1 .. $shnum - 1) {
            for my $field (24, 32) {
                my $m = $d;
                substr($m, $shoff + 64 * $s + $field, 8) = pack("Q<", 0xfffffffffffffff0);
                $put->($m);
            }
        }
        $put->(join("", map { chr(int(rand(256))) } 1 .. 4096));
        $put->("\x7fELF\x02\x01\x01" . join("", map { chr(int(rand(256))) } 1 .. 4096));
        $put->("\x7fELF\x02\x01\x01" . "\0" x 57);
        $put->("\x7fELF\x01\x01\x01" . "\0" x 57);
    ' "$1" "$2"
}

# can_load_modules: the kernel has modules (/proc/modules), this process has CAP_SYS_MODULE
# (bit 16) and loading is not disabled.
can_load_modules() {
    local caps
    [[ -e /proc/modules ]] || return 1
    caps=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
    (( (0x$caps >> 16) & 1 )) && [[ $(cat /proc/sys/kernel/modules_disabled 2>/dev/null || echo 0) == 0 ]]
}

# root_only_chain DIR: DIR and every directory above it are root's and writable by no one else
root_only_chain() {
    local d=$1 owner mode
    while :; do
        read -r owner mode < <(stat -c '%u %a' "$d")
        [[ $owner == 0 ]] && (( (8#$mode & 8#022) == 0 )) || return 1
        [[ $d == / ]] && return 0
        d=$(dirname "$d")
    done
}

# setuid_stapio GID: a setuid-root copy of staprun (sbin/) run by uid 65534 in group GID (stapusr)
# runs only a stapio of root's alone, in directories of root's alone: a hard link of staprun in
# the user's directory (made here by root, as a user could with fs.protected_hardlinks=0) next to
# the user's own stapio, root's stapio hard-linked there, a symbolic link, a group-writable stapio
# or directory are refused before anything is loaded, and the user's stapio never runs.
setuid_stapio() {
    local -a u=(--groups="$1" --)
    local real
    mkdir -p sbin u
    cp "$STAPRUN" "$(dirname "$STAPRUN")/stapio" sbin/
    chown root:root sbin sbin/staprun sbin/stapio
    chmod 755 sbin sbin/stapio
    chmod 4755 sbin/staprun
    chown 65534:65534 u
    chmod 755 u
    printf '#!/bin/sh\nid >%s/evil-ran\n' "$PWD" >u/evil
    chmod 755 u/evil
    chown 65534 u/evil
    ln sbin/staprun u/staprun
    real=$PWD
    STAPRUN=$real/sbin/staprun as_user "${u[@]}" "members of stapusr may only run modules installed" "$real/host/sc_ok.ko"
    cp u/evil u/stapio
    chown 65534 u/stapio
    STAPRUN=$real/u/staprun as_user "${u[@]}" "refusing to run $real/u/stapio for a setuid staprun: it is not owned by root" host/sc_ok.ko
    rm u/stapio
    ln sbin/stapio u/stapio
    STAPRUN=$real/u/staprun as_user "${u[@]}" "refusing to run $real/u/stapio for a setuid staprun: directory $real/u is not owned by root" host/sc_ok.ko
    rm u/stapio
    ln -s evil u/stapio
    STAPRUN=$real/u/staprun as_user "${u[@]}" "refusing to run $real/u/stapio for a setuid staprun: it is a symbolic link" host/sc_ok.ko
    [[ ! -e evil-ran ]]
    chmod 775 sbin/stapio
    STAPRUN=$real/sbin/staprun as_user "${u[@]}" "refusing to run $real/sbin/stapio for a setuid staprun: it is writable by group or others" host/sc_ok.ko
    chmod 755 sbin/stapio
    chmod 1777 sbin
    STAPRUN=$real/sbin/staprun as_user "${u[@]}" "refusing to run $real/sbin/stapio for a setuid staprun: directory $real/sbin is writable by group or others" host/sc_ok.ko
    chmod 755 sbin
    [[ ! -e evil-ran ]]
}

run() {
    source "$TOP/tests/lib/module-edit.sh"
    [[ -n $KVER ]] || { echo "no guest kernel (scripts/guest-kver.sh) to build modules for"; return 77; }
    STAPRUN=$(dirname "$STAP")/staprun
    local rel
    rel=$(uname -r)
    export TMPDIR=$PWD

    # stap -m: only names staprun can use (driver.t checks '-' and the length)
    local m
    for m in ../x a/b .. x.y ''; do
        not "$STAP" -p1 -m "$m" -e 'probe begin {}' >/dev/null 2>m.err
        grep -q 'invalid module name' m.err
    done

    # a stap module for the guest kernel, and the same one claiming to be for this host
    "$STAP" -p4 -m sc_ok -r "$KVER" -e 'probe begin { println("hi"); exit() }' >/dev/null
    mkdir -p host other v2 v4 notours named
    set_vermagic sc_ok.ko host/sc_ok.ko "$rel"

    # built for another kernel: the message names both and says how to rebuild
    if [[ $KVER != "$rel" ]]; then
        refused "cannot load module sc_ok.ko: module sc_ok was built for kernel $KVER; this is kernel $rel: rebuild it with stap -r $rel (or -p4 on a matching machine)" sc_ok.ko
    fi
    set_vermagic sc_ok.ko other/sc_ok.ko "0.0.0-other"
    refused "module sc_ok was built for kernel 0.0.0-other; this is kernel $rel" other/sc_ok.ko
    # past every check, the kernel itself says no (unless this host could load modules)
    if can_load_modules; then
        echo "this host may load modules: host/sc_ok.ko is not run"
    else
        refused "cannot load module sc_ok (host/sc_ok.ko): " host/sc_ok.ko
        refused "cannot load module sc_ok (host/sc_ok.ko): " -b 4 host/sc_ok.ko a=1
    fi

    # not stap's: no stap_transport (edited out, or a kernel module), another protocol
    replace_string host/sc_ok.ko notours/sc_ok.ko stap_transport=3 stap_tramsport=3
    refused "cannot load module notours/sc_ok.ko: not a module built by stap (no stap_transport in its modinfo)" notours/sc_ok.ko
    local kmod
    kmod=$(find "/lib/modules/$KVER/kernel" -name '*.ko' -size -64k -print -quit)
    if [[ -n $kmod ]]; then
        cp "$kmod" .
        refused "not a module built by stap" "$(basename "$kmod")"
    fi
    # protocol 2: a module built before _stp_load_id, which could be loaded but never removed by staprun
    replace_string host/sc_ok.ko v2/sc_ok.ko stap_transport=3 stap_transport=2
    refused "built by an incompatible stap: transport protocol 2, this staprun speaks 3: rebuild it with this stap" v2/sc_ok.ko
    replace_string host/sc_ok.ko v4/sc_ok.ko stap_transport=3 stap_transport=4
    refused "built by an incompatible stap: transport protocol 4, this staprun speaks 3" v4/sc_ok.ko
    # the file holds another module than its name says
    cp host/sc_ok.ko named/renamed.ko
    refused 'the file holds module "sc_ok", not renamed: name the file sc_ok.ko' named/renamed.ko

    # names: module files, -A and -d
    refused "cannot load module exit.out: a module file is named NAME.ko" exit.out
    refused "cannot load module ../x.y.ko: a module file is named NAME.ko" ../x.y.ko
    refused "cannot load module $(printf 'x%.0s' {1..56}).ko: a module file is named NAME.ko" \
        "$(printf 'x%.0s' {1..56}).ko"
    for m in ../x a/b .. x.y '' 'a b' "$(printf 'x%.0s' {1..56})"; do
        refused "bad module name \"$m\"" -d "$m"
        refused "bad module name \"$m\"" -A "$m"
    done
    refused "module sc_ok is not loaded" -d sc_ok
    refused "module sc_ok is not loaded" -A sc-ok
    # a bare name is looked for in the systemtap directory
    refused "cannot open module /lib/modules/$rel/systemtap/no_such.ko: No such file or directory" no_such
    refused "cannot open module ./none.ko: No such file or directory" ./none.ko
    mkfifo fifo.ko
    refused "cannot load module fifo.ko: not a regular file" fifo.ko
    refused "cannot load module ./: a module file is named NAME.ko" ./
    # a module file's name ends in .ko (any other file, even a good module, is refused by name)
    mkdir -p noext
    cp host/sc_ok.ko noext/sc_ok
    cp host/sc_ok.ko noext/sc_ok.o
    refused "cannot load module noext/sc_ok: a module file is named NAME.ko" noext/sc_ok
    refused "cannot load module noext/sc_ok.o: a module file is named NAME.ko" noext/sc_ok.o
    refused "cannot load module $PWD/noext/sc_ok: a module file is named NAME.ko" "$PWD/noext/sc_ok"

    # -b: decimal digits, 1 to 1024, checked before anything else is looked at
    local b
    for b in 1x '' ' 1' +1 0x10 0 1025 -1 99999999999999999999999 '1 x=1' 1k; do
        refused "-b needs a buffer size in MB, a number from 1 to 1024, got \"$b\"" -b "$b" host/sc_ok.ko
    done
    refused 'give the buffer size with -b MB, not as the module parameter "_stp_bufsize=4096"' \
        host/sc_ok.ko a=1 _stp_bufsize=4096
    # the kernel takes '-' for '_' in a parameter name (parameq()): every spelling is that parameter
    local d
    for d in _stp-bufsize=4096 -stp-bufsize=1024 -stp_bufsize= _stp_bufsize=; do
        refused "give the buffer size with -b MB, not as the module parameter \"$d\"" host/sc_ok.ko a=1 "$d"
    done
    # another name is another parameter: past this check (the kernel refuses here)
    can_load_modules || refused "cannot load module sc_ok (host/sc_ok.ko): " host/sc_ok.ko _stp_bufsizes=4
    # whitespace or a quote in a parameter would smuggle another one past these checks (the
    # kernel splits its parameter string at spaces outside double quotes)
    local p
    for p in 'a=1 _stp_bufsize=4096' $'a=1\t_stp_bufsize=4096' $'a=1\n_stp_bufsize=4096' 'a="1 _stp_bufsize=4096"' \
        "a='1'" 'a=" _stp_bufsize=4096'; do
        refused "module parameter \"${p//[$'\t\n']/?}\" holds whitespace or a quote: give each name=value as one argument" \
            host/sc_ok.ko "$p"
    done
    # -r N:URI (remote_id/remote_uri): N 0 to 1000000, URI of what stap --remote lets through; checked
    # before anything else: nothing that could end the value reaches the kernel's parameter string
    local r
    for r in '' 1 x:h :h 1: -1:h 1000001:h 99999999999999999999:h '1:h x=1' '1:h"' "1:h'" '1:a;b' \
        "1:$(printf 'h%.0s' {1..256})"; do
        refused "-r needs N:URI, N a number from 0 to 1000000, URI 1 to 255 letters, digits and . _ - @ : / [ ], got \"$r\"" \
            -r "$r" host/sc_ok.ko
    done
    local rrc=0
    "$STAPRUN" -r 1:h -d sc_ok >out 2>err || rrc=$?
    [[ $rrc == 1 ]] && grep -q "^usage: staprun" err || { echo "-r with -d: exit $rrc"; cat err; return 1; }
    local rc=0
    "$STAPRUN" -b $'\n1' host/sc_ok.ko >out 2>err || rc=$?
    [[ $rc == 1 && ! -s out ]] && grep -q '^staprun: -b needs a buffer size in MB' err

    # broken ELF files: a clean refusal each, never a crash (the ASan run checks memory too);
    # made from the module for kernel 0.0.0-other, so that none can be loaded anywhere
    fuzz other/sc_ok.ko fz
    local f n=0
    for f in fz/*/sc_ok.ko; do
        refused "staprun: " "$f" || { echo "(file $f)"; return 1; }
        n=$((n + 1))
    done
    (( n > 250 ))

    # callers: neither root nor in stapusr/stapdev; stapusr outside the systemtap directory, with
    # parameters; stapdev gets as far as root (here the kernel refuses)
    if (( EUID != 0 )) || ! command -v setpriv >/dev/null; then
        echo "not root or no setpriv: the checks of other callers are left to guest/staprun-safety"
        return 0
    fi
    as_user --clear-groups -- "you are not allowed to run stap modules: that takes root, or membership in group stapdev (any module built by stap) or stapusr (modules installed in /lib/modules/$rel/systemtap)" host/sc_ok.ko
    as_user --clear-groups -- "you are not allowed to run stap modules" -d sc_ok
    as_user --clear-groups -- "you are not allowed to run stap modules" -A sc_ok
    local usr dev
    usr=$(getent group stapusr | cut -d: -f3) || true
    dev=$(getent group stapdev | cut -d: -f3) || true
    if [[ -z $usr || -z $dev ]]; then
        echo "no groups stapusr/stapdev here (scripts/install-deps.sh makes them)"
        return 0
    fi
    as_user --groups="$usr" -- "cannot load module $PWD/host/sc_ok.ko: members of stapusr may only run modules installed in /lib/modules/$rel/systemtap/" "$PWD/host/sc_ok.ko"
    as_user --groups="$usr" -- 'members of stapusr may not set module parameters ("a=1")' host/sc_ok.ko a=1
    as_user --groups="$usr" -- "module sc_ok is not loaded" -d sc_ok
    as_user --groups="$dev" -- "cannot load module sc_ok (host/sc_ok.ko): " host/sc_ok.ko a=1
    as_user --groups="$dev" -- "module sc_ok was built for kernel 0.0.0-other" other/sc_ok.ko
    # -b: stapusr's cap is 64 MB per CPU (64 passes on to the next check)
    as_user --groups="$usr" -- "-b 65: a member of stapusr may ask for at most 64 MB per CPU" -b 65 host/sc_ok.ko
    as_user --groups="$usr" -- "members of stapusr may only run modules installed" -b 64 "$PWD/host/sc_ok.ko"
    # stapdev above stapusr's cap (65 MB: 128 MB rings), if memory allows here
    local cpus avail
    cpus=$(( $(sed 's/.*[-,]//' /sys/devices/system/cpu/possible) + 1 ))
    avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
    if (( 128 * cpus <= avail / 2 )); then
        as_user --groups="$dev" -- "cannot load module sc_ok (host/sc_ok.ko): " -b 65 host/sc_ok.ko
    fi
    # the setuid part wants directories of root's alone up to /: this case's own, unless the tree is under a
    # directory others may write to (a clone in /tmp or /var/tmp), then a fresh one in /run
    if root_only_chain "$PWD"; then
        setuid_stapio "$usr"
    else
        local sd
        sd=$(mktemp -d /run/staprun-checks.XXXXXX)
        chmod 755 "$sd"
        mkdir "$sd/host"
        cp host/sc_ok.ko "$sd/host/"
        (cd "$sd" && setuid_stapio "$usr") || { rm -rf "$sd"; return 1; }
        rm -rf "$sd"
    fi

    chmod 600 host/sc_ok.ko
    # the file is opened with the caller's rights
    as_user --groups="$dev" -- "cannot open module host/sc_ok.ko: Permission denied" host/sc_ok.ko
}
