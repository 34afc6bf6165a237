/* secureboot.h - what the running kernel enforces for modules: lockdown, module.sig_enforce, Secure Boot.
 * Used by sign.c (whether to sign without being asked) and main.c (features refused under lockdown). */
#ifndef STAP_SECUREBOOT_H
#define STAP_SECUREBOOT_H

#include "session.h"

/* The running kernel's lockdown mode: "none", "integrity" or "confidentiality" (the bracketed word
 * of /sys/kernel/security/lockdown), or "none" when the file is absent or unreadable. */
const char *secureboot_lockdown_mode(void);

/* 1 when the running machine booted with UEFI Secure Boot on (the EFI SecureBoot variable). */
int secureboot_efi_enabled(void);

/* 1 when the target kernel loads only signed modules: for the running kernel, lockdown,
 * module.sig_enforce or Secure Boot; for another release (-r), its CONFIG_MODULE_SIG_FORCE. */
int secureboot_target_enforces(Session *s);

/* 1 when a module of the target kernel may have to be signed where it runs: enforcing as above,
 * or (another release) a kernel that checks signatures (CONFIG_MODULE_SIG), which a Secure Boot
 * machine then enforces.  Decides the automatic signing when a key exists. */
int secureboot_target_may_enforce(Session *s);

/* Refuses, at translate time, what the running kernel forbids under lockdown: guru mode (-g), whose
 * embedded C may write kernel memory.  0, or 1 after a one-line error.  Only for the running kernel:
 * another release's machine is not known here (staprun there checks what it enforces). */
int secureboot_check_features(Session *s);

#endif
