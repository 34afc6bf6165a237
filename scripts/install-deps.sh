#!/usr/bin/env bash
# install-deps.sh - installs the Debian 12 packages needed to build and to run the guest tests, staprun's groups and the guest kernel's DWARF.
# Used by `make deps` (and so by `make check`, `make trace`, CI) and `make deps-kernels` (--kernels, or
# DEPS_KERNELS=all: the extra test kernels too; DEPS_KERNELS=images, as .ci/run: their images and
# headers only, no DWARF and no initramfs); safe to run again: quiet if all present.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The system groups of staprun's privilege model (man/staprun.8, SAFETY AND SECURITY), made
# as Debian's systemtap package makes them: stapusr (run modules installed in
# /lib/modules/$(uname -r)/systemtap), stapdev (run any module built by stap), stapsys
# (compatibility; grants nothing here). The guest tests chroot into this root, so
# tests/guest/staprun-safety.t finds them too.
GROUPS_NEEDED=(stapusr stapsys stapdev)

# What each package is for:
#   gcc make flex bison pkg-config   build the translator, staprun and stapio
#   libelf-dev libdw-dev             ELF/DWARF reading in the translator
#   pahole                           struct offsets read from DWARF, against which tests/unit/btf.t checks the BTF reader;
#                                    the BTF seeds of tests/fuzz/make-btf-corpus.sh
#   liblzma-dev zlib1g-dev           the translator's BTF from a compressed /boot/vmlinuz (xz, gzip;
#   libzstd-dev                      zstd: 6.12's images)
#   qemu-system-x86 seabios          the test guest (TCG). All a boot opens (checked with strace):
#                                    accel-tcg-x86_64.so (qemu-system-common), bios-256k.bin
#                                    (seabios), linuxboot_dma.bin (qemu-system-data), all hard
#                                    dependencies; no Recommends needed (-nodefaults -display none)
#   busybox-static cpio              the guest initramfs
#   linux-image-amd64                the guest kernel (/boot/vmlinuz-KVER + /lib/modules/KVER)
#   linux-headers-amd64              /lib/modules/KVER/build, to compile modules for it
#   kmod                             modprobe --show-depends, insmod/rmmod in the guest
#   iproute2                         `ip` in the guest: network namespaces, veth, bridges (netfilter tests)
#   clang libbpf-dev                 --runtime=bpf: pass 4's clang -target bpf, stapio's loader (libbpf)
#   libfuse3-dev                     --runtime=bpf: stapio serves procfs probes' files through FUSE
#   clang-14 libclang-rt-14-dev      the parser's libFuzzer target (make fuzz, tests/unit/fuzz-smoke.t):
#                                    clang-14 only Recommends libclang-rt-14-dev, which holds libFuzzer
#                                    and the ASan/UBSan runtimes for clang
#   man-db groff-base                `man -l` renders the generated tapset pages (tests/unit/tapset-man.t)
#   nfs-kernel-server nfs-common     the guest's loopback NFS server and client (exportfs, rpc.nfsd,
#   rpcbind                          rpc.mountd, mount.nfs, rpcbind; tests/guest/tapset-nfs.t)
#   systemtap-sdt-dev                <sys/sdt.h>: the SDT markers of tests/sdt/sdtprog.c (tests/guest/sdt.t)
#   fio                              the iozone-like workload of tests/guest/app-trace.t
#   gnuplot-nox                      app-trace-report --plot (tests/unit/app-trace-report.t)
#   openssh-client openssh-server    stap --remote's ssh; sshd in the two guests of tests/guest/remote-ssh.t
#   g++                              tests/uprobe/throw.cc, whose exceptions fire libstdc++'s throw/catch
#                                    SDT markers (tests/guest/uprobe-library.t)
#   libc6-dbg                        libc's separate debuginfo (/usr/lib/debug/.build-id/): $bytes of
#                                    process("libc.so.6").function("malloc") (tests/guest/uprobe-library.t)
#   ansible                          examples/app-trace/app-trace.yml (tests/unit/app-trace-service.t,
#                                    tests/guest/remote-ssh.t)
#   libdebuginfod-dev                the translator's debuginfod client (translator/dwarf/debuginfod.c)
#   debuginfod libarchive-tools      the test's debuginfod server, reading .deb files with bsdtar (tests/guest/debuginfod.t)
#   curl                             tests/lib/debuginfod.sh asks the server's /metrics whether its scan is done
#   openssl                          stap --make-signing-key (the MOK signing key and certificate; tests/unit/sign.t)
#   ovmf shim-signed                 the Secure Boot guest of make check-secureboot (tests/secureboot/run): OVMF's
#   grub-efi-amd64-signed            firmware with Microsoft's keys, Debian's signed shim and GRUB, and a FAT
#   mtools dosfstools                EFI system partition built without root (mkfs.vfat, mcopy)
PACKAGES=(gcc make flex bison pkg-config libelf-dev libdw-dev pahole liblzma-dev zlib1g-dev libzstd-dev qemu-system-x86 seabios
          busybox-static cpio linux-image-amd64 linux-headers-amd64 kmod iproute2 clang-14 libclang-rt-14-dev
          man-db groff-base nfs-kernel-server nfs-common rpcbind systemtap-sdt-dev fio gnuplot-nox
          g++ libc6-dbg openssh-client openssh-server ansible libdebuginfod-dev debuginfod libarchive-tools curl
          openssl ovmf shim-signed grub-efi-amd64-signed mtools dosfstools clang libbpf-dev
          libfuse3-dev)

# The extra kernels the guest tests can boot (GUEST_KVER=..., make check-kernels), installed only with
# --kernels: Debian 12's 6.12 series (bookworm's security/updates archive) and the PREEMPT_RT flavour
# of both 6.1 and 6.12. Each metapackage depends on one release's image (linux-image-KVER); its
# DWARF comes from linux-image-KVER-dbg the same way as the default kernel's (ensure_kernel_dwarf).
# With DEPS_KERNELS=images (CI: make check runs tests/kernels-short.list on them from their BTF) the
# DWARF is not fetched, and INITRD=No skips the initramfs their postinst would build: the guest
# boots an initramfs of its own (tests/lib/guest.sh), and this host is not meant to boot them.
EXTRA_KERNELS=(linux-image-6.12-amd64 linux-image-6.12-rt-amd64 linux-image-rt-amd64)
EXTRA_KERNEL_PACKAGES=("${EXTRA_KERNELS[@]}" linux-headers-6.12-amd64 linux-headers-6.12-rt-amd64
                       linux-headers-rt-amd64)

missing_packages() {  # PACKAGE...: those not installed (one dpkg-query for all: ~40 ms a run)
    local -A ok=()
    local p status
    while read -r p status; do
        [[ $status == ii* ]] && ok[${p%%:*}]=1
    done < <(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "$@" 2>/dev/null)
    for p in "$@"; do
        [[ -n ${ok[${p%%:*}]:-} ]] || echo "$p"
    done
}

missing_groups() {
    local g
    for g in "${GROUPS_NEEDED[@]}"; do
        getent group "$g" >/dev/null || echo "$g"
    done
}

# Creates the missing groups when root; otherwise says which (the tests of non-root
# callers then skip their group cases). Never fails the script.
ensure_groups() {
    local g
    local -a missing
    mapfile -t missing < <(missing_groups)
    (( ${#missing[@]} == 0 )) && return 0
    if (( EUID != 0 )) || ! command -v groupadd >/dev/null; then
        echo "install-deps: missing groups ${missing[*]} (as root: groupadd --system NAME)" >&2
        return 0
    fi
    for g in "${missing[@]}"; do
        groupadd --system "$g" || echo "install-deps: groupadd --system $g failed" >&2
    done
}

# The guest kernel's DWARF (kernel.function probes, target variables; `stap -r KVER`):
# /usr/lib/debug/boot/vmlinux-KVER, which only linux-image-KVER-dbg ships, and the DWARF of the few
# modules the tapsets and tests probe (DEBUG_MODULES, under usr/lib/debug/lib/modules/KVER/). That
# package is 858 MB to download and 5.6 GB installed, nearly all of it the other modules' debuginfo,
# which nothing here reads: so the .deb is downloaded (apt-get download: no install, no root needed),
# those files (633 MB + 77 MB) extracted in one pass, and the .deb deleted. About 10 s + 60 s. KVER is
# scripts/guest-kver.sh's, and with --kernels each extra kernel's too. INSTALL_DEPS_ROOT (default /) is the root the
# files go under; set it to test this part without touching the real files.
DEBUG_ROOT=${INSTALL_DEPS_ROOT:-/}
# module debuginfo, relative to usr/lib/debug/lib/modules/KVER/ (scsi_mod: tapset/linux/scsi.stp;
# nfs, nfsv3, nfsv4, sunrpc: tapset/linux/nfs.stp and nfs_proc.stp; nfsd, lockd: tapset/linux/nfsd.stp; dummy:
# what tests/guest/debuginfod.t's server serves, ensure_debuginfod_files)
DEBUG_MODULES=(kernel/drivers/scsi/scsi_mod.ko
               kernel/fs/nfs/nfs.ko kernel/fs/nfs/nfsv3.ko kernel/fs/nfs/nfsv4.ko
               kernel/fs/nfsd/nfsd.ko kernel/fs/lockd/lockd.ko kernel/net/sunrpc/sunrpc.ko
               kernel/drivers/net/dummy.ko)

# is_elf FILE: FILE starts with the ELF magic
is_elf() { [[ $(head -c 4 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n') == 7f454c46 ]]; }

# ensure_kernel_dwarf KVER: the files present (quiet), or downloaded and extracted; 1 with a message if not
ensure_kernel_dwarf() {
    local kver=$1 pkg tmp deb rc=0 m f root=${DEBUG_ROOT%/}
    local -a want=() missing=()
    pkg=linux-image-$kver-dbg
    want=("usr/lib/debug/boot/vmlinux-$kver")
    for m in "${DEBUG_MODULES[@]}"; do
        want+=("usr/lib/debug/lib/modules/$kver/$m")
    done
    for f in "${want[@]}"; do
        [[ -s $root/$f ]] && is_elf "$root/$f" || missing+=("$f")
    done
    (( ${#missing[@]} == 0 )) && return 0
    for f in "${missing[@]}"; do
        if ! mkdir -p "$root/$(dirname "$f")" 2>/dev/null || [[ ! -w $root/$(dirname "$f") ]]; then
            echo "install-deps: missing $root/$f (the guest kernel's DWARF, from $pkg);" >&2
            if (( EUID != 0 )); then
                echo "install-deps: run as root to download it (only the files needed are kept)" >&2
            else
                echo "install-deps: cannot write to $root/$(dirname "$f")" >&2
            fi
            return 1
        fi
    done
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/install-deps.XXXXXX")
    deb=$(compgen -G "$DBGD_OLD_DEBS/${pkg}_*.deb" | head -n 1) || true
    if [[ -n $deb ]]; then
        echo "install-deps: extracting ${missing[*]} from $deb"
    else
        echo "install-deps: downloading $pkg (about 1 GB) for ${missing[*]}"
        # apt's download sandbox user must be able to write there
        chmod 0755 "$tmp"
        if getent passwd _apt >/dev/null; then
            chown _apt "$tmp" 2>/dev/null || true
        fi
        if ! (cd "$tmp" && apt-get download -qq "$pkg" </dev/null) >"$tmp/apt.log" 2>&1; then
            # stale or empty package lists: update once and try again
            apt-get update -qq >>"$tmp/apt.log" 2>&1 || true
            (cd "$tmp" && apt-get download -qq "$pkg" </dev/null) >>"$tmp/apt.log" 2>&1 || rc=$?
        fi
        deb=$(find "$tmp" -maxdepth 1 -name "${pkg}_*.deb" | head -n 1)
        if (( rc != 0 )) || [[ -z $deb ]]; then
            echo "install-deps: apt-get download $pkg failed: $(grep -m 1 -E '^(E|W):' "$tmp/apt.log" || tail -n 1 "$tmp/apt.log")" >&2
            echo "install-deps: without $root/${missing[0]}, kernel.function probes and target variables cannot work" >&2
            rm -rf "$tmp"
            return 1
        fi
    fi
    # extracted in one pass into a directory beside the targets, each moved into place once complete:
    # an interrupted run never leaves a truncated file that a later run would take as present
    rc=0
    mkdir -p "$root/usr/lib/debug"
    local stage
    stage=$(mktemp -d "$root/usr/lib/debug/.install-deps.XXXXXX")
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$stage" "${missing[@]/#/./}" || rc=$?
    rm -rf "$tmp"
    for f in "${missing[@]}"; do
        if (( rc != 0 )) || ! is_elf "$stage/$f"; then
            echo "install-deps: extracting $f from $pkg failed (disk space?)" >&2
            rm -rf "$stage"
            return 1
        fi
    done
    for f in "${missing[@]}"; do
        chmod 0644 "$stage/$f"
        mv -f "$stage/$f" "$root/$f"
        echo "install-deps: installed $root/$f"
    done
    rm -rf "$stage"
    # a .deb kept by an earlier install-deps (for a debuginfod that scanned it whole: minutes of CPU) no longer
    # serves anything
    [[ $deb != "$DBGD_OLD_DEBS"/* ]] || rm -f "$deb"
}

# What tests/guest/debuginfod.t's server indexes (DBGD_FILES, in STAP_TEST_CACHE, default /var/cache/stap-tests:
# outside the clone, so a fresh clone on the same machine, as CI's, downloads nothing again): the default kernel's
# vmlinux and dummy.ko DWARF (links to what ensure_kernel_dwarf extracted; the server reads files, -F, in a second
# where the whole 860 MB linux-image-KVER-dbg .deb took it 2 to 4 minutes of CPU) and libc6-dbg's .deb (7 MB:
# the server reads Debian archives too, -U). An earlier install-deps kept the kernel's .deb in DBGD_OLD_DEBS:
# ensure_kernel_dwarf extracts from it, then deletes it.
STAP_TEST_CACHE=${STAP_TEST_CACHE:-/var/cache/stap-tests}
DBGD_FILES=$STAP_TEST_CACHE/debuginfod-files
DBGD_OLD_DEBS=$STAP_TEST_CACHE/debuginfod-debs

# ensure_debuginfod_files KVER: DBGD_FILES present (quiet), or made; a message (no failure) if libc6-dbg cannot be
# downloaded. After ensure_kernel_dwarf.
ensure_debuginfod_files() {
    local kver=$1 root=${DEBUG_ROOT%/}
    mkdir -p "$DBGD_FILES"
    chmod 0755 "$DBGD_FILES"
    ln -sfn "$root/usr/lib/debug/boot/vmlinux-$kver" "$DBGD_FILES/vmlinux-$kver"
    ln -sfn "$root/usr/lib/debug/lib/modules/$kver/kernel/drivers/net/dummy.ko" "$DBGD_FILES/dummy-$kver.ko"
    # the earlier layout's: its libc6-dbg moved here, its index of the kernel's .deb gone
    mv -f "$DBGD_OLD_DEBS"/libc6-dbg_*.deb "$DBGD_FILES/" 2>/dev/null || true
    rmdir "$DBGD_OLD_DEBS" 2>/dev/null || true
    rm -f "$STAP_TEST_CACHE/debuginfod/index.sqlite" "$STAP_TEST_CACHE/debuginfod/index.log"
    compgen -G "$DBGD_FILES/libc6-dbg_*.deb" >/dev/null && return 0
    getent passwd _apt >/dev/null && chown _apt "$DBGD_FILES" 2>/dev/null || true
    echo "install-deps: downloading libc6-dbg into $DBGD_FILES (tests/guest/debuginfod.t)"
    (cd "$DBGD_FILES" && apt-get download -qq libc6-dbg </dev/null) >/dev/null 2>&1 ||
        echo "install-deps: apt-get download libc6-dbg failed: tests/guest/debuginfod.t will skip" >&2
    chown root "$DBGD_FILES" 2>/dev/null || true
}

# install_packages PACKAGE...: the missing ones installed (as root), or a message and 1
install_packages() {
    if ! command -v dpkg-query >/dev/null; then
        echo "install-deps: dpkg-query not found: this script supports Debian 12 only;" >&2
        echo "install-deps: install by hand: $*" >&2
        exit 1
    fi
    local missing
    mapfile -t missing < <(missing_packages "$@")
    (( ${#missing[@]} == 0 )) && return 0

    if (( EUID != 0 )); then
        echo "install-deps: missing packages: ${missing[*]}" >&2
        echo "install-deps: run as root (or: sudo apt-get install ${missing[*]})" >&2
        return 1
    fi
    echo "install-deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # The packages are for the test guest (which shares this root read-only): their services
    # (rpcbind, nfs-server) must not start on this host. policy-rc.d's 101 tells invoke-rc.d and
    # deb-systemd-invoke not to; an administrator's own policy-rc.d is left as it is.
    local policy=/usr/sbin/policy-rc.d own_policy=0
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\n# made by install-deps.sh for the length of one apt-get install\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        own_policy=1
    fi
    local rc=0
    apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null || rc=$?
    (( own_policy )) && rm -f "$policy"
    (( rc == 0 )) || return "$rc"
    mapfile -t missing < <(missing_packages "$@")
    if (( ${#missing[@]} )); then
        echo "install-deps: still missing after apt-get: ${missing[*]}" >&2
        return 1
    fi
}

main() {
    local kernels=${DEPS_KERNELS:-} kver meta
    [[ ${1:-} == --kernels ]] && kernels=all
    local -a packages=("${PACKAGES[@]}")
    [[ $kernels == all ]] && packages+=("${EXTRA_KERNEL_PACKAGES[@]}")
    ensure_groups
    install_packages "${packages[@]}" || exit 1
    # images: what the default kernel's suite needs comes first; without the others make check still runs it
    if [[ $kernels == images ]] && ! (export INITRD=No; install_packages "${EXTRA_KERNEL_PACKAGES[@]}"); then
        echo "install-deps: the other kernels (${EXTRA_KERNELS[*]}) could not be installed:" \
             "make check runs the default kernel only" >&2
    fi
    # after the packages: guest-kver.sh needs linux-image-amd64 and linux-headers-amd64
    if ! kver=$("$TOP/scripts/guest-kver.sh"); then
        echo "install-deps: no guest kernel (scripts/guest-kver.sh), so no kernel DWARF either" >&2
        exit 1
    fi
    ensure_kernel_dwarf "$kver" || exit 1
    ensure_debuginfod_files "$kver"
    [[ $kernels == all ]] || return 0
    for meta in "${EXTRA_KERNELS[@]}"; do
        kver=$("$TOP/scripts/guest-kver.sh" --release-of "$meta") || { echo "install-deps: $meta: no linux-image-KVER dependency" >&2; exit 1; }
        ensure_kernel_dwarf "$kver" || exit 1
    done
}

main "$@"
