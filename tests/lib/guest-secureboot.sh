# guest-secureboot.sh - bash library: the UEFI Secure Boot way of booting the test guest (OVMF with Microsoft's
# keys, Debian's signed shim, GRUB and kernel, a MOK enrolled offline).  Sourced by tests/lib/guest.sh (guest_boot).
# shellcheck shell=bash
#
# GUEST_SECUREBOOT_MOK=CERT.der (set by tests/secureboot/run) makes guest_boot use it: the firmware starts
# \EFI\BOOT\BOOTX64.EFI (shim, signed by Microsoft's UEFI CA) from a FAT image built here without root (mkfs.vfat
# + mtools); shim starts grubx64.efi (signed by Debian, whose key shim carries), whose grub.cfg boots the signed
# Debian kernel with the usual initramfs and command line.  CERT is enrolled by writing shim's MokList into a
# copy of OVMF's VARS file (tests/lib/ovmf-add-mok.py), which is what MokManager does after `mokutil --import`.

GUEST_OVMF_CODE=${GUEST_OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.ms.fd}
GUEST_OVMF_VARS=${GUEST_OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.ms.fd}
GUEST_SHIM=${GUEST_SHIM:-/usr/lib/shim/shimx64.efi.signed}
GUEST_MOKMANAGER=${GUEST_MOKMANAGER:-/usr/lib/shim/mmx64.efi.signed}
GUEST_GRUB_EFI=${GUEST_GRUB_EFI:-/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed}

# guest_secureboot_missing: the files the Secure Boot boot needs that are not installed (none: empty)
guest_secureboot_missing() {
    local f
    for f in "$GUEST_OVMF_CODE" "$GUEST_OVMF_VARS" "$GUEST_SHIM" "$GUEST_GRUB_EFI"; do
        [[ -r $f ]] || echo "$f"
    done
    command -v mkfs.vfat >/dev/null || echo mkfs.vfat
    command -v mcopy >/dev/null || echo mcopy
}

# guest_secureboot_esp KVER INITRD APPEND IMAGE: the EFI system partition image
guest_secureboot_esp() {
    local kver=$1 initrd=$2 append=$3 img=$4 cfg
    cfg=$(mktemp)
    # the signed GRUB reads grub.cfg from its own directory (cmdpath) or the prefix \EFI\debian
    cat >"$cfg" <<CFG
set timeout=0
set default=0
menuentry "test guest $kver" {
    linux /vmlinuz $append
    initrd /initrd
}
CFG
    rm -f "$img"
    mkfs.vfat -C -n ESP "$img" $(( 64 * 1024 )) >/dev/null || { rm -f "$cfg"; return 1; }
    mmd -i "$img" ::/EFI ::/EFI/BOOT ::/EFI/debian &&
        mcopy -i "$img" "$GUEST_SHIM" ::/EFI/BOOT/BOOTX64.EFI &&
        mcopy -i "$img" "$GUEST_GRUB_EFI" ::/EFI/BOOT/grubx64.efi &&
        mcopy -i "$img" "$GUEST_MOKMANAGER" ::/EFI/BOOT/mmx64.efi &&
        mcopy -i "$img" "$cfg" ::/EFI/BOOT/grub.cfg &&
        mcopy -i "$img" "$cfg" ::/EFI/debian/grub.cfg &&
        mcopy -i "$img" "/boot/vmlinuz-$kver" ::/vmlinuz &&
        mcopy -i "$img" "$initrd" ::/initrd
    local rc=$?
    rm -f "$cfg"
    return "$rc"
}

# guest_secureboot_args KVER INITRD APPEND RESULTS: the qemu arguments, one a line, that boot the guest through
# shim with GUEST_SECUREBOOT_MOK enrolled (files made in RESULTS/.secureboot)
guest_secureboot_args() {
    local kver=$1 initrd=$2 append=$3 dir=$4/.secureboot missing
    missing=$(guest_secureboot_missing)
    if [[ -n $missing ]]; then
        guest_log "Secure Boot boot needs: ${missing//$'\n'/ } (scripts/install-deps.sh installs them)"
        return 1
    fi
    mkdir -p "$dir"
    python3 "$TOP/tests/lib/ovmf-add-mok.py" "$GUEST_OVMF_VARS" "$dir/vars.fd" "$GUEST_SECUREBOOT_MOK" || return 1
    # no_timer_check: under TCG on q35 the kernel's check that the PIT timer reaches the IO-APIC fails and panics
    guest_secureboot_esp "$kver" "$initrd" "$append no_timer_check" "$dir/esp.img" || return 1
    printf '%s\n' -machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on \
        -drive "if=pflash,format=raw,unit=0,readonly=on,file=$GUEST_OVMF_CODE" \
        -drive "if=pflash,format=raw,unit=1,file=$dir/vars.fd" \
        -drive "if=virtio,format=raw,file=$dir/esp.img"
}
