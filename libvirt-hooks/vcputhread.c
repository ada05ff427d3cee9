// SPDX-License-Identifier: GPL-2.0
/* vCPU threads of a VMM process; see include/libvirt/vcputhread.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "libvirt/qemu.h"
#include "libvirt/vcputhread.h"
#include "libvirt/xmlutil.h"
#include "util/file.h"

static long xml_long_prop(xmlNode *n, const char *name)
{
	char *v = xml_prop(n, name);
	long long out;

	if (!v || parse_ll(v, &out) || out < 0 || out > INT_MAX)
		out = -1;
	free(v);
	return (long)out;
}

/* vCPU n's TID from libvirt's status file of domain, if it describes process pid. */
static int vcpu_from_status(const char *domain, pid_t pid, unsigned int vcpu, pid_t *tid,
			    char *file, size_t len)
{
	const char *dir = getenv("VSCHED_LIBVIRT_RUNDIR");
	xmlNode *root, *n, *v;
	xmlDoc *doc;
	int ret = -ESRCH;

	snprintf(file, len, "%s/%s.xml", dir && *dir ? dir : QEMU_RUNDIR_DFL, domain);
	doc = xmlReadFile(file, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc)
		return -ENOENT;
	root = xmlDocGetRootElement(doc);
	if (!root || !xml_is(root, "domstatus") || xml_long_prop(root, "pid") != pid)
		goto out;
	for (n = xml_child(root, "vcpus"), v = n ? n->children : NULL; v; v = v->next)
		if (xml_is(v, "vcpu") && xml_long_prop(v, "id") == (long)vcpu &&
		    xml_long_prop(v, "pid") > 0) {
			*tid = (pid_t)xml_long_prop(v, "pid");
			ret = 0;
			break;
		}
out:
	xmlFreeDoc(doc);
	return ret;
}

static int thread_name(pid_t pid, const char *tid, char *buf, size_t len)
{
	char p[320];
	size_t n;
	int ret;

	snprintf(p, sizeof(p), "/proc/%d/task/%.255s/comm", (int)pid, tid);
	ret = file_read(p, buf, len);
	if (ret)
		return ret;
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* "vcpuN", or QEMU's "CPU N/ACCEL" with any accelerator name. */
static bool is_vcpu_name(const char *name, unsigned int vcpu)
{
	char want[32];
	size_t n;

	snprintf(want, sizeof(want), "vcpu%u", vcpu);
	if (!strcmp(name, want))
		return true;
	n = (size_t)snprintf(want, sizeof(want), "CPU %u/", vcpu);
	return !strncmp(name, want, n) && name[n];
}

static int vcpu_from_names(pid_t pid, unsigned int vcpu, pid_t *tid)
{
	char p[64], name[32];
	struct dirent *e;
	DIR *dir;
	int ret = -ESRCH;

	snprintf(p, sizeof(p), "/proc/%d/task", (int)pid);
	dir = opendir(p);
	if (!dir)
		return -errno;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.' || thread_name(pid, e->d_name, name, sizeof(name)))
			continue;
		if (is_vcpu_name(name, vcpu)) {
			*tid = (pid_t)atoi(e->d_name);
			ret = 0;
			break;
		}
	}
	closedir(dir);
	return ret;
}

/* Whether tid is (still) a thread of pid. */
static bool is_thread_of(pid_t pid, pid_t tid)
{
	char p[64], buf[8];

	snprintf(p, sizeof(p), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	return !file_read(p, buf, sizeof(buf));
}

int vcpu_thread_find(const char *domain, pid_t pid, unsigned int vcpu, pid_t *tid,
		     struct diag *d)
{
	char status[PATH_MAX] = "";
	int ret;

	if (pid <= 0)
		return diag_set(d, -ESRCH, "no process to look in");
	if (domain && !vcpu_from_status(domain, pid, vcpu, tid, status, sizeof(status)) &&
	    is_thread_of(pid, *tid))
		return 0;
	ret = vcpu_from_names(pid, vcpu, tid);
	ret = ret == -ENOENT ? -ESRCH : ret;
	if (ret && status[0])
		diag_set(d, ret, "looked for vCPU %u in libvirt's %s (QEMU's query-cpus-fast), "
			 "then for a thread of process %d named 'vcpu%u' or 'CPU %u/<accelerator>' "
			 "(KVM, TCG, ...)", vcpu, status, (int)pid, vcpu, vcpu);
	else if (ret)
		diag_set(d, ret, "looked for a thread of process %d named 'vcpu%u' or "
			 "'CPU %u/<accelerator>' (KVM, TCG, ...)", (int)pid, vcpu, vcpu);
	return ret;
}
