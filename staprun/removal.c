/* removal.c - a loaded run told apart from later loads of the same module name (owner, _stp_load_id), and its removal.
 * Used by staprun/main.c (after a load, -A, -d) and permissions.c (the owner check of -A/-d). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "staprun.h"

#define REMOVE_TRIES    50      /* x 100 ms */

/* The module's _stp_load_id (a random number its runtime drew at init); 0: cannot be read. */
static unsigned long long read_load_id(const char *name)
{
	char value[32];
	unsigned long long id;
	char *end;

	if (module_param_read(name, "_stp_load_id", value, sizeof(value)) != 0)
		return 0;
	errno = 0;
	id = strtoull(value, &end, 10);
	if (errno || end == value || (*end && *end != '\n'))
		return 0;
	return id;
}

/* The load id read before and after the owner: both reads name the same load (ids are random,
 * a load after a removal gets another), so the owner is that load's. */
int run_identify(const char *name, struct run_id *id)
{
	unsigned long long before = read_load_id(name);

	memset(id, 0, sizeof(*id));
	snprintf(id->name, sizeof(id->name), "%s", name);
	id->owner = module_owner(name);
	id->load_id = read_load_id(name);
	if (!before || before != id->load_id || id->owner < 0)
		return -1;
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * From here on a setuid staprun's caller cannot stop it (SIGSTOP, ptrace): every id becomes root's
 * (kill(2) needs the sender's uid to match the target's real or saved uid), and the stops a
 * terminal sends are ignored.  Removal is the run's last step: nothing afterwards needs the caller's
 * ids.  So the check that the loaded module is still the run and the delete_module() right after it
 * cannot be pulled apart by a signal to let another load of the same name in between.  Not closed: a
 * caller who started staprun in a cgroup of their own (cgroup v2 delegation) can still freeze or
 * throttle it there; a module that pins itself until staprun releases its load id would close that.
 */
static void removal_window_close(void)
{
	signal(SIGTSTP, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	if (running_setuid() && geteuid() == 0 && setresuid(0, 0, 0) < 0)
		say("cannot take root's ids for the removal: %s", strerror(errno));
}

enum { RUN_GONE, RUN_SAME, RUN_OTHER, RUN_UNKNOWN };

/* Whether the module called id->name is still the load id names (RUN_UNKNOWN: loaded, but its
 * owner or load id cannot be read, as while it is being removed). */
static int still_the_run(const struct run_id *id, struct run_id *now)
{
	if (run_identify(id->name, now) == 0)
		return now->owner == id->owner && now->load_id == id->load_id ? RUN_SAME : RUN_OTHER;
	return module_loaded(id->name) ? RUN_UNKNOWN : RUN_GONE;
}

static int say_not_the_run(const struct run_id *id, const struct run_id *now)
{
	if (now->owner >= 0 && now->load_id)
		err("module %s was removed and loaded again (now a run of uid %ld): not removing it;"
		    " the run started here is over", id->name, now->owner);
	else
		err("module %s: cannot tell whether it is still the run started here (its owner or"
		    " _stp_load_id cannot be read): not removing it", id->name);
	return -1;
}

/* Each delete_module() comes right after the check that the module is still the run id names, with
 * nothing written in between (a full stderr could stop staprun there); busy (stapio's files
 * closing): checked and tried again, briefly. */
int run_remove(const struct run_id *id)
{
	struct run_id now;
	int tries, is = RUN_UNKNOWN;

	say("removing module %s", id->name);
	removal_window_close();
	for (tries = 0; tries < REMOVE_TRIES; tries++) {
		is = still_the_run(id, &now);
		if (is == RUN_GONE) {
			say("module %s is gone already (rmmod ended the run)", id->name);
			return 0;
		}
		if (is == RUN_OTHER)
			return say_not_the_run(id, &now);
		if (is == RUN_UNKNOWN) {
			sleep_ms(100);
			continue;
		}
		if (syscall(SYS_delete_module, id->name, O_NONBLOCK) == 0)
			return 0;
		if (errno == ENOENT) {
			say("module %s is gone already (rmmod ended the run)", id->name);
			return 0;
		}
		if (errno != EAGAIN && errno != EBUSY)
			break;
		sleep_ms(100);
	}
	if (is == RUN_UNKNOWN)
		return say_not_the_run(id, &now);
	err("cannot remove module %s: %s", id->name, strerror(errno));
	return -1;
}
