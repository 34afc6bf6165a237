#!/usr/bin/env python3
# ovmf-add-mok.py - enrolls X.509 certificates as Machine Owner Keys offline: writes shim's MokList variable into a
# copy of an OVMF VARS file.  Used by tests/lib/guest-secureboot.sh (the Secure Boot guest of make check-secureboot).
#
# Usage: ovmf-add-mok.py TEMPLATE_VARS.fd OUT_VARS.fd CERT.der...
#
# What MokManager would leave after "Enroll MOK": the variable MokList (vendor GUID SHIM_LOCK_GUID), attributes
# non-volatile + boot-service access only (shim ignores a MokList that the OS could have written, i.e. one with
# runtime access), whose data is one EFI_SIGNATURE_LIST of type EFI_CERT_X509_GUID per certificate.  shim mirrors
# it to MokListRT at each boot, and Linux loads those keys.  The VARS file is an EFI firmware volume holding an
# authenticated variable store: a store header, then variables one after the other (each an
# AUTHENTICATED_VARIABLE_HEADER, its UCS-2 name and its data, 4-byte aligned), then free space (0xff).  A plain
# variable needs no timestamp or signature, so appending one in the free space is all that enrollment takes.
import struct
import sys
import uuid

NV_FV_GUID = uuid.UUID("fff12b8d-7696-4c8b-a985-2747075b4f50")      # EFI_SYSTEM_NV_DATA_FV_GUID
AUTH_STORE_GUID = uuid.UUID("aaf32c78-947b-439a-a180-2e144ec37792")  # gEfiAuthenticatedVariableGuid
SHIM_LOCK_GUID = uuid.UUID("605dab50-e046-4300-abb6-3dd810dd8b23")
CERT_X509_GUID = uuid.UUID("a5c059a1-94e4-4aa7-87b5-ab155c2bf072")
START_ID = 0x55AA
VAR_ADDED = 0x3F
ATTR_NV_BS = 0x1 | 0x2
HEADER = struct.Struct("<HBBIQ16sIII16s")   # StartId State Reserved Attributes MonotonicCount TimeStamp
                                             # PubKeyIndex NameSize DataSize VendorGuid


def fail(msg):
    sys.exit("ovmf-add-mok: " + msg)


def signature_list(cert):
    entry = SHIM_LOCK_GUID.bytes_le + cert          # EFI_SIGNATURE_DATA: owner, then the DER certificate
    return CERT_X509_GUID.bytes_le + struct.pack("<III", 28 + len(entry), 0, len(entry)) + entry


def variables(vars_fd, start, end):
    """(offset, name, guid, state) of each variable, and the offset of the free space."""
    off, out = start, []
    while off + HEADER.size <= end:
        sid, state, _, _, _, _, _, nsize, dsize, guid = HEADER.unpack_from(vars_fd, off)
        if sid != START_ID:
            break
        name = vars_fd[off + HEADER.size:off + HEADER.size + nsize].decode("utf-16-le").rstrip("\0")
        out.append((off, name, uuid.UUID(bytes_le=guid), state))
        off = (off + HEADER.size + nsize + dsize + 3) & ~3
    return out, off


def main():
    if len(sys.argv) < 4:
        fail("usage: ovmf-add-mok.py TEMPLATE_VARS.fd OUT_VARS.fd CERT.der...")
    data = bytearray(open(sys.argv[1], "rb").read())
    if data[40:44] != b"_FVH" or uuid.UUID(bytes_le=bytes(data[16:32])) != NV_FV_GUID:
        fail(sys.argv[1] + " is not an OVMF VARS firmware volume")
    store = struct.unpack_from("<H", data, 48)[0]                  # the FV header's length
    if uuid.UUID(bytes_le=bytes(data[store:store + 16])) != AUTH_STORE_GUID:
        fail("no authenticated variable store in " + sys.argv[1])
    size = struct.unpack_from("<I", data, store + 16)[0]
    found, free = variables(data, store + 28, store + size)
    for _, name, guid, state in found:
        if name == "MokList" and guid == SHIM_LOCK_GUID and state == VAR_ADDED:
            fail("the template has a MokList already")
    payload = b"".join(signature_list(open(path, "rb").read()) for path in sys.argv[3:])
    name = "MokList\0".encode("utf-16-le")
    record = HEADER.pack(START_ID, VAR_ADDED, 0, ATTR_NV_BS, 0, bytes(16), 0, len(name), len(payload),
                         SHIM_LOCK_GUID.bytes_le) + name + payload
    if free + len(record) > store + size or any(b != 0xFF for b in data[free:free + len(record)]):
        fail("no room for MokList in the variable store")
    data[free:free + len(record)] = record
    open(sys.argv[2], "wb").write(data)


main()
