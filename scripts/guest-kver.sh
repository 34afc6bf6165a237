#!/usr/bin/env bash
# guest-kver.sh - prints the kernel version (KVER) the QEMU test guest boots and modules are built for.
# Used by tests/run, tests/guest/demo.sh, tests/lib/guest.sh and scripts/check-kernels.sh; GUEST_KVER=... overrides the choice.
#
# guest-kver.sh        the default kernel: the release Debian's linux-image-amd64 depends on (6.1 on
#                      Debian 12) when it is usable, else the newest usable one. The extra kernels
#                      (make deps-kernels: 6.12, 6.12-rt, 6.1-rt) are never chosen by default.
# guest-kver.sh --all  every usable kernel, one a line, the default first.
# guest-kver.sh --release-of METAPACKAGE   the KVER an installed kernel metapackage (linux-image-amd64,
#                      linux-image-6.12-rt-amd64, ...) depends on (scripts/install-deps.sh).
set -euo pipefail

# A usable KVER has a kernel image to boot and a build tree to compile modules against.
usable() {
    [[ -f /boot/vmlinuz-$1 && -f /lib/modules/$1/build/Makefile ]]
}

# all_usable: the usable KVERs, oldest first (version sort: 6.1.0-10 is newer than 6.1.0-9)
all_usable() {
    local img kver
    while read -r img; do
        kver=${img#/boot/vmlinuz-}
        if usable "$kver"; then echo "$kver"; fi
    done < <(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V)
}

# release_of METAPACKAGE: the KVER of the linux-image-KVER it depends on; 1 if not installed
release_of() {
    local dep
    dep=$(dpkg-query -W -f='${Depends}' "$1" 2>/dev/null) || return 1
    dep=${dep%%[ ,]*}
    [[ $dep == linux-image-* ]] || return 1
    echo "${dep#linux-image-}"
}

default_kver() {
    local meta
    meta=$(release_of linux-image-amd64) || meta=
    if [[ -n $meta ]] && usable "$meta"; then
        echo "$meta"
        return
    fi
    all_usable | tail -n 1
}

main() {
    if [[ ${1:-} == --release-of ]]; then
        release_of "$2"
        return
    fi
    if [[ ${1:-} == --all ]]; then
        local def
        def=$(default_kver)
        [[ -n $def ]] || exit 1
        echo "$def"
        all_usable | grep -vxF -- "$def" || true
        return
    fi
    if [[ -n ${GUEST_KVER:-} ]]; then
        if ! usable "$GUEST_KVER"; then
            echo "guest-kver: GUEST_KVER=$GUEST_KVER lacks /boot/vmlinuz-$GUEST_KVER" \
                 "or /lib/modules/$GUEST_KVER/build/Makefile" >&2
            exit 1
        fi
        echo "$GUEST_KVER"
        return
    fi
    local best
    best=$(default_kver)
    if [[ -z $best ]]; then
        echo "guest-kver: no kernel with both /boot/vmlinuz-KVER and /lib/modules/KVER/build/Makefile;" >&2
        echo "guest-kver: install linux-image-amd64 and linux-headers-amd64 (make deps)" >&2
        exit 1
    fi
    echo "$best"
}

main "$@"
