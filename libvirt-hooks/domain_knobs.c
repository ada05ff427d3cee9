// SPDX-License-Identifier: GPL-2.0
/*
 * Domain-level tuning a vsched VM does not apply: <vcpus> (which vCPUs are online), <cpu>,
 * <numatune>, <memtune>, <blkiotune>, <memoryBacking>, <currentMemory> below <memory> and
 * <maxMemory>, and <iothreads>, <perf>, <launchSecurity>, <seclabel>. On a QEMU domain they are
 * libvirt's; started by vsched they were dropped without a word, and <vcpus> put other vCPUs
 * online than the domain enabled. Kept here, with their lines, for plan_warn_vsched() to name.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvirt/domain.h"
#include "libvirt/xmlutil.h"
#include "util/compiler.h"
#include "util/cpuset.h"

static __printf(4, 5) void knob_add(struct domain_def *def, xmlNode *n, const char *elem,
				    const char *fmt, ...)
{
	struct domain_knob *k;
	va_list ap;

	if (def->nr_knobs >= DOMAIN_KNOBS_MAX)
		return;
	k = &def->knobs[def->nr_knobs++];
	k->elem = elem;
	k->line = xml_line(n);
	va_start(ap, fmt);
	vsnprintf(k->why, sizeof(k->why), fmt, ap);
	va_end(ap);
}

/*
 * <vcpus>: libvirt puts its enabled vCPUs online (def->online); vsched starts vCPUs 0 to
 * vcpus-1. Named only where those differ.
 */
static void knob_vcpus(xmlNode *vcpus, struct domain_def *def)
{
	struct cpuset on;
	char w[128], o[128];
	unsigned int i;

	cpuset_clear(&on);
	for (i = 0; i < def->vcpus && i < CPUSET_MAX; i++)
		cpuset_set(&on, i);
	if (!memcmp(&def->online, &on, sizeof(on)))
		return;
	if (cpuset_format(&def->online, w, sizeof(w)) < 0)
		snprintf(w, sizeof(w), "...");
	if (cpuset_format(&on, o, sizeof(o)) < 0)
		snprintf(o, sizeof(o), "...");
	knob_add(def, vcpus, "vcpus", "enabled vCPUs '%s': vsched has no vCPU hot-plug and starts "
		 "vCPUs '%s'; not applied", w, o);
}

/* An element with a child <name> whose attr is yes (<perf><event enabled='yes'/>). */
static bool knob_any_yes(xmlNode *n, const char *name, const char *attr)
{
	xmlNode *c;
	bool yes = false;

	for (c = n->children; c && !yes; c = c->next) {
		char *v = xml_is(c, name) ? xml_prop(c, attr) : NULL;

		yes = v && !strcmp(v, "yes");
		free(v);
	}
	return yes;
}

/*
 * Elements of a domain a vsched VM cannot honour beyond tuning: iothreads, perf events, memory
 * encryption, security labels. Found by sweeping libvirt's test files (branch xmlcorpus): each
 * passed `vsched run --domain` without a word, <launchSecurity type='sev'> included.
 */
static void knob_more(xmlNode *root, struct domain_def *def)
{
	xmlNode *n;
	const char *io = "iothreads";

	n = xml_child(root, io);
	if (!n)
		n = xml_child(root, io = "iothreadids");
	/* elem must outlive the document: a literal, never n->name. */
	if (n && def->iothreads.count)
		knob_add(def, n, io, "%u iothread(s): a vsched VM has no iothreads; not applied",
			 def->iothreads.count);
	n = xml_child(root, "perf");
	if (n && knob_any_yes(n, "event", "enabled"))
		knob_add(def, n, "perf", "vsched does not count perf events for a VM; not applied");
	n = xml_child(root, "launchSecurity");
	if (n) {
		char *type = xml_prop(n, "type");

		knob_add(def, n, "launchSecurity", "type '%s': vsched has no confidential VMs, the "
			 "guest's memory is neither encrypted nor attested; not applied",
			 type ? type : "");
		free(type);
	}
	for (n = root->children; n; n = n->next) {
		char *type = xml_is(n, "seclabel") ? xml_prop(n, "type") : NULL;

		/* libvirt's default type is 'dynamic'; only 'none' asks for nothing. */
		if (xml_is(n, "seclabel") && (!type || strcmp(type, "none"))) {
			knob_add(def, n, "seclabel", "vsched does not label or confine a VM's "
				 "process (SELinux, AppArmor, DAC); not applied");
			free(type);
			break;
		}
		free(type);
	}
}

void domain_knobs(xmlNode *root, struct domain_def *def)
{
	static const struct {
		const char *elem, *why;
	} whole[] = {
		{ "cpu", "vsched does not set the guest CPU's model, features or topology; "
			 "not applied" },
		{ "numatune", "a vsched VM has one memory node and no NUMA placement; not applied" },
		{ "memtune", "vsched sets no memory limits on a VM; not applied" },
		{ "blkiotune", "a vsched VM has no block devices; not applied" },
		{ "memoryBacking", "vsched backs guest RAM with anonymous memory (no hugepages, "
				   "locking or sharing); not applied" },
		{ "maxMemory", "vsched has no memory hot-plug; not applied" },
	};
	xmlNode *n;
	size_t i;

	n = xml_child(root, "vcpus");
	if (n)
		knob_vcpus(n, def);
	n = xml_child(root, "currentMemory");
	if (n) {
		char *v = xml_text(n), *unit = xml_prop(n, "unit");
		uint64_t cur;

		if (!domain_scale_memory(v, unit, &cur) && cur < def->memory)
			knob_add(def, n, "currentMemory", "vsched has no balloon: the guest gets all "
				 "of <memory>; not applied");
		free(v);
		free(unit);
	}
	for (i = 0; i < ARRAY_SIZE(whole); i++) {
		n = xml_child(root, whole[i].elem);
		if (n)
			knob_add(def, n, whole[i].elem, "%s", whole[i].why);
	}
	knob_more(root, def);
}
