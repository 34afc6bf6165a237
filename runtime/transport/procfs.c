/* procfs.c - creates and removes /proc/systemtap/<name>/ with .cmd and trace0..traceN-1.
 * Used by transport.c (init and exit); /proc/systemtap itself is shared by all stap modules. */

/*
 * /proc/systemtap may already exist (created by another stap module, loaded
 * now or earlier): procfs offers no lookup of an entry, and proc_mkdir() of
 * an existing name WARNs.  So we look the directory up through the caller's
 * /proc mount, create it only if absent, then create our own directory with
 * the path form "systemtap/<name>", which procfs resolves itself.  The shared
 * directory is never removed (a concurrently loaded module may be using it);
 * it costs one empty directory.  Only if /proc is not mounted in the loading
 * process's namespace do we fall back to a blind proc_mkdir(), which prints a
 * harmless warning when the directory exists.
 */

static struct proc_dir_entry *stp_proc_dir;	/* /proc/systemtap/<name> */

/*
 * The run belongs to whoever loaded the module: the real uid and gid of the
 * process in finit_module() (module init runs in its context), i.e. the
 * caller of a setuid staprun, never its root.  Its directory and files are
 * that user's, so stapio, which runs with the caller's ids, can open them;
 * staprun lets only root and that user attach (-A) or remove (-d) the run.
 * _stp_owner_uid shows it; a value given at load time is overwritten.
 */
static unsigned int stp_owner_uid;
module_param_named(_stp_owner_uid, stp_owner_uid, uint, 0444);
MODULE_PARM_DESC(_stp_owner_uid, "uid of the user who loaded the module (read-only)");
static kuid_t stp_owner_kuid;
static kgid_t stp_owner_kgid;

/*
 * This load of the module, told from every other load of a module of the same
 * name: a random non-zero number drawn at init, shown as the read-only
 * _stp_load_id (a value given at load time is overwritten).  staprun reads it
 * when it loads or checks a run and compares it again right before removing
 * the module by name, so it never removes a later load of the same module.
 */
static unsigned long long stp_load_id;
module_param_named(_stp_load_id, stp_load_id, ullong, 0444);
MODULE_PARM_DESC(_stp_load_id, "random id of this load of the module (read-only)");

static void stp_proc_owner_init(void)
{
	stp_owner_kuid = current_uid();
	stp_owner_kgid = current_gid();
	stp_owner_uid = from_kuid_munged(&init_user_ns, stp_owner_kuid);
	do
		stp_load_id = get_random_u64();
	while (!stp_load_id);
}

static void stp_proc_own(struct proc_dir_entry *e)
{
	if (e)
		proc_set_user(e, stp_owner_kuid, stp_owner_kgid);
}

/* 1: /proc/systemtap exists, 0: it does not, -1: cannot tell. */
static int stp_proc_root_exists(void)
{
	struct path path;
	bool is_proc;

	if (kern_path("/proc", LOOKUP_FOLLOW, &path))
		return -1;
	is_proc = path.dentry->d_sb->s_magic == PROC_SUPER_MAGIC;
	path_put(&path);
	if (!is_proc)
		return -1;
	if (kern_path("/proc/" STP_PROC_ROOT, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &path))
		return 0;
	path_put(&path);
	return 1;
}

static void stp_proc_root_ensure(void)
{
	if (stp_proc_root_exists() != 1)
		proc_mkdir(STP_PROC_ROOT, NULL);	/* NULL if it exists: fine */
}

static int stp_proc_create_traces(struct stp_ring **rings)
{
	char file[32];
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct proc_dir_entry *e;

		snprintf(file, sizeof(file), STP_TRACE_PREFIX "%u", cpu);
		e = proc_create_data(file, 0400, stp_proc_dir, &stp_trace_ops,
				     rings[cpu]);
		if (!e)
			return -ENOMEM;
		stp_proc_own(e);
	}
	return 0;
}

static int stp_proc_create(const char *name, struct stp_ring **rings)
{
	char dir[MODULE_NAME_LEN + sizeof(STP_PROC_ROOT) + 1];
	struct proc_dir_entry *ctl;
	int rc;

	stp_proc_owner_init();
	stp_proc_root_ensure();
	snprintf(dir, sizeof(dir), STP_PROC_ROOT "/%s", name);
	stp_proc_dir = proc_mkdir_mode(dir, 0500, NULL);
	if (!stp_proc_dir)
		return -EEXIST;
	stp_proc_own(stp_proc_dir);
	rc = -ENOMEM;
	ctl = proc_create_data(STP_CTL_FILE, 0600, stp_proc_dir, &stp_ctl_ops, NULL);
	if (!ctl)
		goto fail;
	stp_proc_own(ctl);
	rc = stp_proc_create_traces(rings);
	if (rc)
		goto fail;
	return 0;
fail:
	proc_remove(stp_proc_dir);
	stp_proc_dir = NULL;
	return rc;
}

/* Waits for file operations in flight and calls release for open files. */
static void stp_proc_remove(void)
{
	proc_remove(stp_proc_dir);
	stp_proc_dir = NULL;
}
