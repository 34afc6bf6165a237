/* verify.c - tells stap modules from others: module files (one this staprun can run on this kernel) and loaded modules.
 * Used by staprun/main.c before loading and by permissions.c; the ELF reading is modinfo.c. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol.h"
#include "staprun.h"

/* Copies at most the first word of s (up to size-1 bytes), bytes that are
 * not printable ASCII as '?': the file's strings go to the user's terminal. */
static void printable_word(const char *s, char *out, size_t size)
{
	size_t n = 0;

	for (; s[n] && s[n] != ' ' && n + 1 < size; n++)
		out[n] = s[n] > ' ' && s[n] < 127 ? s[n] : '?';
	out[n] = '\0';
}

/* The running kernel's build id (hex) from /sys/kernel/notes: its NT_GNU_BUILD_ID note.
 * 0, or -1 when it cannot be read (then there is nothing to compare). */
static int running_build_id(char *out, size_t size)
{
	unsigned char notes[4096];
	size_t len = 0, off = 0;
	ssize_t n;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (len < sizeof(notes) && (n = read(fd, notes + len, sizeof(notes) - len)) > 0)
		len += (size_t)n;
	close(fd);
	while (off + 12 <= len) {
		unsigned int namesz, descsz, type;
		size_t name_off = off + 12, desc_off, next;

		memcpy(&namesz, notes + off, 4);
		memcpy(&descsz, notes + off + 4, 4);
		memcpy(&type, notes + off + 8, 4);
		desc_off = name_off + ((namesz + 3) & ~3u);
		next = desc_off + ((descsz + 3) & ~3u);
		if (namesz > len || descsz > len || next > len)
			break;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && !memcmp(notes + name_off, "GNU", 4) &&
		    descsz > 0 && 2 * descsz < size) {
			for (size_t i = 0; i < descsz; i++)
				snprintf(out + 2 * i, 3, "%02x", notes[desc_off + i]);
			return 0;
		}
		off = next;
	}
	return -1;
}

/* A module with DWARF probes records the build id of the kernel debuginfo its addresses came from;
 * another build of the same release would put its probes at wrong places. */
static int kernel_build_id_matches(const struct modinfo *mi, const char *path)
{
	const char *want = modinfo_get(mi, "stap_kernel_build_id");
	char running[130], shown[130];

	if (!want)
		return 1;
	if (running_build_id(running, sizeof(running)) < 0) {
		say("module %s: cannot read the running kernel's build id (/sys/kernel/notes): not checked", path);
		return 1;
	}
	printable_word(want, shown, sizeof(shown));
	if (strcmp(shown, running)) {
		err("cannot load module %s: its probes were placed with the debuginfo of a kernel with build id %s;"
		    " the running kernel's build id is %s: rebuild the module with stap against this kernel's"
		    " debuginfo", path, shown, running);
		return 0;
	}
	say("module %s: kernel build id %s matches", path, running);
	return 1;
}

/* The running kernel's release, as the kernel says it (/proc/sys/kernel/osrelease): uname() is
 * the caller's to change (setarch --uname-2.6 makes it 2.6.N).  -1: it cannot be read. */
int kernel_release(char *buf, size_t size)
{
	int fd = open("/proc/sys/kernel/osrelease", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] ? 0 : -1;
}

/* The script's name and SHA-256 from the modinfo, each only when it is a printable word (the
 * hash 64 hex digits); the module's own buffer size (stap_bufsize, MB per CPU), the runtime's
 * default when it does not say. */
static void script_info_get(const struct modinfo *mi, struct script_info *si)
{
	const char *name = modinfo_get(mi, "stap_script"), *sha = modinfo_get(mi, "stap_script_sha256");
	const char *mb = modinfo_get(mi, "stap_bufsize");
	size_t digits = mb ? strspn(mb, "0123456789") : 0;

	si->bufsize_mb = STP_BUFSIZE_MB;
	if (digits >= 1 && digits <= 4 && !mb[digits]) {
		unsigned long v = strtoul(mb, NULL, 10);
		if (v >= STP_BUFSIZE_MB_MIN && v <= STP_BUFSIZE_MB_MAX)
			si->bufsize_mb = v;
	}
	si->name[0] = si->sha256[0] = '\0';
	if (name)
		printable_word(name, si->name, sizeof(si->name));
	if (sha && strlen(sha) == 64 && strspn(sha, "0123456789abcdef") == 64)
		memcpy(si->sha256, sha, 65);
}

int module_verify(int fd, const char *path, const char *name, struct script_info *si)
{
	struct modinfo mi;
	const char *why, *transport, *modname, *vermagic;
	char built_for[256], release[256], shown[64];
	int rc = -1;

	if (modinfo_read(fd, &mi, &why) < 0) {
		err("cannot load module %s: %s", path, why);
		return -1;
	}
	script_info_get(&mi, si);
	transport = modinfo_get(&mi, "stap_transport");
	modname = modinfo_get(&mi, "name");
	vermagic = modinfo_get(&mi, "vermagic");
	if (!transport) {
		err("cannot load module %s: not a module built by stap (no stap_transport in its modinfo)",
		    path);
	} else if (strcmp(transport, STP_TRANSPORT_VERSION)) {
		printable_word(transport, shown, 16);
		err("cannot load module %s: built by an incompatible stap: transport protocol %s,"
		    " this staprun speaks %s: rebuild it with this stap", path, shown, STP_TRANSPORT_VERSION);
	} else if (modname && strcmp(modname, name)) {
		/* the kernel names the module after its contents, staprun after the file */
		printable_word(modname, shown, sizeof(shown));
		err("cannot load module %s: the file holds module \"%s\", not %s: name the file %s.ko",
		    path, shown, name, shown);
	} else if (!vermagic) {
		err("cannot load module %s: malformed module (no vermagic in its modinfo)", path);
	} else if (kernel_release(release, sizeof(release)) < 0) {
		err("cannot load module %s: cannot tell which kernel runs (/proc/sys/kernel/osrelease"
		    " cannot be read)", path);
	} else {
		printable_word(vermagic, built_for, sizeof(built_for));
		if (strcmp(built_for, release)) {
			err("cannot load module %s: module %s was built for kernel %s; this is kernel %s:"
			    " rebuild it with stap -r %s (or -p4 on a matching machine)",
			    path, name, built_for, release, release);
		} else if (kernel_build_id_matches(&mi, path)) {
			say("module %s: built by stap (transport %s) for kernel %s", name, transport,
			    built_for);
			rc = 0;
		}
	}
	modinfo_free(&mi);
	return rc;
}

/* The loaded module NAME is a stap module: it made /proc/systemtap/NAME. */
int module_ours(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/%s/%s/%s", STP_PROC_ROOT, name, STP_CTL_FILE);
	return faccessat(AT_FDCWD, path, F_OK, AT_EACCESS) == 0;
}

/* /proc/systemtap/NAME, the directory the module NAME makes. */
void module_proc_dir(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "/proc/%s/%s", STP_PROC_ROOT, name);
}
