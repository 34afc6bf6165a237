/* tracepoints.c - kernel.trace("SYSTEM:NAME") probes on the kernel's and modules' tracepoints,
 * through the tracepoint API.  Included by generated code that uses the family. */
#include <linux/tracepoint.h>
#include <linux/module.h>
#include <linux/notifier.h>

/* The generated hit functions keep the arguments in a small array on the stack: the compiler would
 * add a stack protector to each, for no gain (nothing is written through the array). */
#ifdef __no_stack_protector
#define STP_TRACEPOINT_HIT_ATTRS __no_stack_protector
#else
#define STP_TRACEPOINT_HIT_ATTRS
#endif

struct stp_tracepoint {
	const struct stp_probe_desc *desc;
	const char *name;                   /* "sched_switch" */
	const char *module;                 /* the module defining it, NULL for the kernel's */
	void *probe;                        /* the generated hit function (its prototype is the tracepoint's) */
	int optional;                       /* '?': a tracepoint the kernel lacks is skipped */
	struct tracepoint *tp;              /* where it is registered, NULL when it is not */
	struct tracepoint *found;           /* the kernel's tracepoint of that name, at start */
};

struct stp_tracepoint_family {
	struct stp_tracepoint *probes;
	unsigned int n;
	bool has_modules;                   /* some probes are on module tracepoints */
	bool notifier_on;
	struct notifier_block nb;
};

/* The hit of a tracepoint with n arguments calls this with them saved in args: the handler reads
 * them as $name through c->entry_data.  Tracepoints call their probes with preemption disabled. */
static __always_inline void stp_tracepoint_hit(const struct stp_probe_desc *d, unsigned long *args)
{
	stp_run_probe_data(d, NULL, args);
}

static void stp_tracepoint_lookup(struct tracepoint *tp, void *priv)
{
	struct stp_tracepoint_family *f = priv;
	unsigned int i;

	for (i = 0; i < f->n; i++) {
		struct stp_tracepoint *p = &f->probes[i];

		if (!p->module && !p->found && !strcmp(tp->name, p->name))
			p->found = tp;
	}
}

static int stp_tracepoint_attach(struct stp_tracepoint *p, struct tracepoint *tp)
{
	int rc = tracepoint_probe_register(tp, p->probe, NULL);

	if (!rc)
		p->tp = tp;
	return rc;
}

static void stp_tracepoint_detach(struct stp_tracepoint *p)
{
	if (!p->tp)
		return;
	tracepoint_probe_unregister(p->tp, p->probe, NULL);
	p->tp = NULL;
}

/* A module with tracepoints comes or goes (also replayed for the loaded ones when the notifier is
 * registered and unregistered): its tracepoints that the script probes are attached or detached.
 * Serialized by the kernel's tracepoint module list mutex. */
static int stp_tracepoint_module_event(struct notifier_block *nb, unsigned long event, void *data)
{
	struct stp_tracepoint_family *f = container_of(nb, struct stp_tracepoint_family, nb);
	struct tp_module *tpm = data;
	struct module *mod = tpm->mod;
	unsigned int i, j;

	for (i = 0; i < f->n; i++) {
		struct stp_tracepoint *p = &f->probes[i];

		if (!p->module || strcmp(p->module, mod->name))
			continue;
		if (event == MODULE_STATE_GOING) {
			if (p->tp && within_module((unsigned long)p->tp, mod))
				stp_tracepoint_detach(p);
			continue;
		}
		if (event != MODULE_STATE_COMING || p->tp)
			continue;
		for (j = 0; j < mod->num_tracepoints; j++) {
			struct tracepoint *tp = tracepoint_ptr_deref(mod->tracepoints_ptrs + j);
			int rc;

			if (strcmp(tp->name, p->name))
				continue;
			rc = stp_tracepoint_attach(p, tp);
			if (rc)
				pr_warn("%s: cannot probe tracepoint %s of module %s (%d) for %s\n", STP_MODULE_NAME,
					p->name, p->module, rc, p->desc->pp);
			break;
		}
	}
	return NOTIFY_OK;
}

static void stp_tracepoints_stop(struct stp_tracepoint_family *f)
{
	unsigned int i;

	if (f->notifier_on) {
		/* detaches every module tracepoint (GOING is replayed for each module) */
		unregister_tracepoint_module_notifier(&f->nb);
		f->notifier_on = false;
	}
	for (i = 0; i < f->n; i++)
		stp_tracepoint_detach(&f->probes[i]);
	/* no hit is still running in this module's code when this returns */
	tracepoint_synchronize_unregister();
}

static int stp_tracepoints_start(struct stp_tracepoint_family *f)
{
	unsigned int i;
	int rc;

	for (i = 0; i < f->n; i++) {
		f->probes[i].tp = NULL;
		f->probes[i].found = NULL;
		if (f->probes[i].module)
			f->has_modules = true;
	}
	for_each_kernel_tracepoint(stp_tracepoint_lookup, f);
	for (i = 0; i < f->n; i++) {
		struct stp_tracepoint *p = &f->probes[i];

		if (p->module)
			continue;
		if (!p->found) {
			if (p->optional)
				continue;
			stp_startup_error("the running kernel has no tracepoint %s (for %s)", p->name, p->desc->pp);
			stp_tracepoints_stop(f);
			return -ENOENT;
		}
		rc = stp_tracepoint_attach(p, p->found);
		if (rc && !p->optional) {
			stp_startup_error("cannot probe tracepoint %s (%d) for %s", p->name, rc, p->desc->pp);
			stp_tracepoints_stop(f);
			return rc;
		}
	}
	if (f->has_modules) {
		/* module tracepoints: attached now for loaded modules, later for those loaded during the run */
		f->nb.notifier_call = stp_tracepoint_module_event;
		rc = register_tracepoint_module_notifier(&f->nb);
		if (rc) {
			stp_startup_error("cannot watch modules for their tracepoints (%d)", rc);
			stp_tracepoints_stop(f);
			return rc;
		}
		f->notifier_on = true;
	}
	return 0;
}

#define STP_TRACEPOINT_FAMILY(table)						\
	static struct stp_tracepoint_family stp_tracepoint_family_ = {		\
		.probes = table, .n = ARRAY_SIZE(table),			\
	};									\
	static int stp_tracepoint_register(void)				\
	{									\
		return stp_tracepoints_start(&stp_tracepoint_family_);		\
	}									\
	static void stp_tracepoint_unregister(void)				\
	{									\
		stp_tracepoints_stop(&stp_tracepoint_family_);			\
	}
