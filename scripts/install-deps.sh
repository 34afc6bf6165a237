#!/usr/bin/env bash
# install-deps.sh - installs the Debian 12 packages needed to build and to run the guest tests.
# Used by `make deps` (and so by `make check`, `make trace`, CI); safe to run again: quiet if all present.
set -euo pipefail

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

main() {
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
