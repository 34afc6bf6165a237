#!/usr/bin/env bash
# guest-kver.sh - prints the kernel version (KVER) the QEMU test guest boots and modules are built for.
# Used by tests/run, tests/guest/demo.sh and tests/lib/guest.sh; GUEST_KVER=... overrides the choice.
set -euo pipefail

# A usable KVER has a kernel image to boot and a build tree to compile modules against.
usable() {
    [[ -f /boot/vmlinuz-$1 && -f /lib/modules/$1/build/Makefile ]]
}

main() {
    if [[ -n ${GUEST_KVER:-} ]]; then
        if ! usable "$GUEST_KVER"; then
            echo "guest-kver: GUEST_KVER=$GUEST_KVER lacks /boot/vmlinuz-$GUEST_KVER" \
                 "or /lib/modules/$GUEST_KVER/build/Makefile" >&2
            exit 1
        fi
        echo "$GUEST_KVER"
        return
    fi
    local img kver best=
    # version sort so that 6.1.0-10 is newer than 6.1.0-9
    while read -r img; do
        kver=${img#/boot/vmlinuz-}
        usable "$kver" && best=$kver
    done < <(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V)
    if [[ -z $best ]]; then
        echo "guest-kver: no kernel with both /boot/vmlinuz-KVER and /lib/modules/KVER/build/Makefile;" >&2
        echo "guest-kver: install linux-image-amd64 and linux-headers-amd64 (make deps)" >&2
        exit 1
    fi
    echo "$best"
}

main "$@"
