#!/usr/bin/env bash
# install-deps.sh - installs the Debian 12 packages needed to build and to run the guest tests, and staprun's groups.
# Used by `make deps` (and so by `make check`, `make trace`, CI); safe to run again: quiet if all present.
set -euo pipefail

# The system groups of staprun's privilege model (man/staprun.8, SAFETY AND SECURITY), made
# as Debian's systemtap package makes them: stapusr (run modules installed in
# /lib/modules/$(uname -r)/systemtap), stapdev (run any module built by stap), stapsys
# (compatibility; grants nothing here). The guest tests chroot into this root, so
# tests/guest/staprun-safety.t finds them too.
GROUPS_NEEDED=(stapusr stapsys stapdev)

# What each package is for:
#   gcc make flex bison pkg-config   build the translator, staprun and stapio
#   libelf-dev libdw-dev             ELF/DWARF reading in the translator
#   qemu-system-x86 seabios          the test guest (TCG). All a boot opens (checked with strace):
#                                    accel-tcg-x86_64.so (qemu-system-common), bios-256k.bin
#                                    (seabios), linuxboot_dma.bin (qemu-system-data), all hard
#                                    dependencies; no Recommends needed (-nodefaults -display none)
#   busybox-static cpio              the guest initramfs
#   linux-image-amd64                the guest kernel (/boot/vmlinuz-KVER + /lib/modules/KVER)
#   linux-headers-amd64              /lib/modules/KVER/build, to compile modules for it
#   kmod                             modprobe --show-depends, insmod/rmmod in the guest
#   clang-14 libclang-rt-14-dev      the parser's libFuzzer target (make fuzz, tests/unit/fuzz-smoke.t):
#                                    clang-14 only Recommends libclang-rt-14-dev, which holds libFuzzer
#                                    and the ASan/UBSan runtimes for clang
PACKAGES=(gcc make flex bison pkg-config libelf-dev libdw-dev qemu-system-x86 seabios
          busybox-static cpio linux-image-amd64 linux-headers-amd64 kmod clang-14 libclang-rt-14-dev)

is_installed() {
    local status
    status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null) || return 1
    [[ $status == ii* ]]
}

missing_packages() {
    local p
    for p in "${PACKAGES[@]}"; do
        is_installed "$p" || echo "$p"
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

main() {
    ensure_groups
    if ! command -v dpkg-query >/dev/null; then
        echo "install-deps: dpkg-query not found: this script supports Debian 12 only;" >&2
        echo "install-deps: install by hand: ${PACKAGES[*]}" >&2
        exit 1
    fi
    local missing
    mapfile -t missing < <(missing_packages)
    (( ${#missing[@]} == 0 )) && return 0

    if (( EUID != 0 )); then
        echo "install-deps: missing packages: ${missing[*]}" >&2
        echo "install-deps: run as root (or: sudo apt-get install ${missing[*]})" >&2
        exit 1
    fi
    echo "install-deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
    mapfile -t missing < <(missing_packages)
    if (( ${#missing[@]} )); then
        echo "install-deps: still missing after apt-get: ${missing[*]}" >&2
        exit 1
    fi
}

main "$@"
