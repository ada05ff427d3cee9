// SPDX-License-Identifier: GPL-2.0
/*
 * Domain XML: the top-level elements, and the hand-off to cputune/vgroups (the document is
 * domain_load.c's).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "libvirt/domain.h"
#include "libvirt/partition.h"

static const struct mem_unit {
	const char *name;
	uint64_t scale;
} mem_units[] = {
	{ "b", 1 }, { "bytes", 1 },
	{ "KB", 1000ULL }, { "k", 1ULL << 10 }, { "KiB", 1ULL << 10 },
	{ "MB", 1000000ULL }, { "M", 1ULL << 20 }, { "MiB", 1ULL << 20 },
	{ "GB", 1000000000ULL }, { "G", 1ULL << 30 }, { "GiB", 1ULL << 30 },
	{ "TB", 1000000000000ULL }, { "T", 1ULL << 40 }, { "TiB", 1ULL << 40 },
	{ "PB", 1000000000000000ULL }, { "P", 1ULL << 50 }, { "PiB", 1ULL << 50 },
	{ "EB", 1000000000000000000ULL }, { "E", 1ULL << 60 }, { "EiB", 1ULL << 60 },
};

int domain_scale_memory(const char *value, const char *unit, uint64_t *bytes)
{
	unsigned long long v;
	uint64_t scale = 0;
	size_t i;

	if (parse_ull(value, &v))
		return -EINVAL;
	if (!unit || !*unit) {
		scale = 1024;
	} else {
		/* virScaleInteger: single letters are case-insensitive, the rest exact. */
		for (i = 0; i < ARRAY_SIZE(mem_units); i++)
			if (strlen(unit) == 1 ? !strcasecmp(unit, mem_units[i].name)
					      : !strcmp(unit, mem_units[i].name))
				scale = mem_units[i].scale;
		if (!scale)
			return -EINVAL;
	}
	if (v > UINT64_MAX / scale)
		return -ERANGE;
	*bytes = v * scale;
	return 0;
}

/*
 * libvirt (virDomainParseMemory(), capped) takes at most LLONG_MAX bytes, keeps KiB rounded up
 * and refuses 2^53 KiB and more ("size value too large", seen with `virsh define`): vsched took
 * up to 16 EiB, and its VMM wrapped the mapping of 16 EiB - 1 KiB to 1 GiB.
 */
static int domain_memory_kib(xmlNode *n, const char *v, struct domain_def *def, struct diag *d)
{
	uint64_t kib = (def->memory + 1023) / 1024;

	if (kib >= (((uint64_t)LLONG_MAX + 1023) / 1024))
		return xerr(d, n, "memory", v, "size value too large");
	def->memory = kib * 1024;
	return 0;
}

/*
 * The sum of the guest NUMA cells of <cpu><numa> (virDomainNumaGetMemorySize()), in KiB; 0
 * without cells. Each cell's memory is required and read as <memory> is (unit, KiB rounded up).
 */
static int domain_numa_kib(xmlNode *root, uint64_t *kib, int *line, struct diag *d)
{
	xmlNode *cpu = xml_child(root, "cpu"), *numa = cpu ? xml_child(cpu, "numa") : NULL, *c;
	int ret = 0;

	*kib = 0;
	for (c = numa ? numa->children : NULL; c && !ret; c = c->next) {
		char *v, *unit;
		uint64_t b;

		if (!xml_is(c, "cell"))
			continue;
		v = xml_prop(c, "memory");
		unit = xml_prop(c, "unit");
		if (!v)
			ret = xerr(d, c, "cell", NULL, "missing element or attribute './@memory'");
		else if (domain_scale_memory(v, unit, &b))
			ret = xerr(d, c, "cell", v, "Invalid value '%s' for element or attribute "
				   "'./@memory'", v);
		else if ((b + 1023) / 1024 >= ((uint64_t)LLONG_MAX / 1024) - *kib)
			ret = xerr(d, c, "cell", v, "size value too large");
		else
			*kib += (b + 1023) / 1024;
		free(v);
		free(unit);
	}
	*line = numa ? xml_line(numa) : 0;
	return ret;
}

/*
 * <memory>; where it is absent or 0, the sum of the guest NUMA cells, as libvirt's
 * virDomainDefPostParseMemory() infers the initial memory (its cpu-numa-no-memory-element.xml,
 * a DO_TEST, has cells and no <memory>: vsched refused it).
 */
static int domain_memory(xmlNode *root, struct domain_def *def, struct diag *d)
{
	xmlNode *n = xml_child(root, "memory");
	uint64_t numa_kib;
	char *v, *unit;
	int ret, numa_line;

	ret = domain_numa_kib(root, &numa_kib, &numa_line, d);
	if (ret)
		return ret;
	if (!n && numa_kib) {
		def->memory = numa_kib * 1024;
		def->memory_line = numa_line;
		return 0;
	}
	if (!n)
		return xerr(d, root, "memory", NULL,
			    "Memory size must be specified via <memory> or in the <numa> "
			    "configuration");
	v = xml_text(n);
	unit = xml_prop(n, "unit");
	ret = domain_scale_memory(v, unit, &def->memory);
	if (ret == -EINVAL && unit && parse_ull(v, &(unsigned long long){ 0 }) == 0)
		ret = xerr(d, n, "memory", unit, "unknown suffix '%s'", unit);
	else if (ret == -ERANGE)
		ret = xerr(d, n, "memory", v, "value too large for unit '%s'", unit ? unit : "KiB");
	else if (ret)
		ret = xerr(d, n, "memory", v, "Invalid value '%s' for element or attribute "
			   "'./memory[1]'", v);
	else if (def->memory > LLONG_MAX)
		ret = xerr(d, n, "memory", v, "value too large: %s%s", v, unit ? unit : "KiB");
	else if (!def->memory && numa_kib)
		def->memory = numa_kib * 1024;
	else if (!def->memory)
		ret = xerr(d, n, "memory", v, "Memory size must be specified via <memory> or "
			   "in the <numa> configuration");
	else
		ret = domain_memory_kib(n, v, def, d);
	def->memory_line = xml_line(n);
	free(v);
	free(unit);
	return ret;
}

/*
 * <vcpu placement='static|auto' cpuset='LIST'>, as libvirt's virDomainVcpuParse(): placement is
 * one of the two; without it, <numatune><memory placement='auto'> makes it 'auto'. With 'auto'
 * the cpuset is not read (numad decides); otherwise it must be a non-empty host CPU list.
 */
static int domain_vcpu_placement(xmlNode *root, xmlNode *n, struct domain_def *def,
				 struct diag *d)
{
	char *p = xml_prop(n, "placement"), *cs = NULL;
	xmlNode *nt = xml_child(root, "numatune");
	unsigned int count = 0;
	int ret = 0;

	if (p && strcmp(p, "static") && strcmp(p, "auto")) {
		ret = xerr(d, n, "vcpu", p, "Invalid value for attribute 'placement' in element "
			   "'vcpu': '%s'.", p);
		free(p);
		return ret;
	}
	if (p)
		def->vcpu_placement_auto = !strcmp(p, "auto");
	else if (nt && (nt = xml_child(nt, "memory")) && (p = xml_prop(nt, "placement")))
		def->vcpu_placement_auto = !strcmp(p, "auto");
	free(p);
	if (def->vcpu_placement_auto || !(cs = xml_prop_list(n, "cpuset")))
		return 0;
	/* Host CPUs, up to libvirt's 16383. */
	if (cpulist_parse(cs, CPULIST_MAX, NULL, &count))
		ret = xerr(d, n, "vcpu", cs, "Failed to parse bitmap '%s'", cs);
	else if (!count)
		ret = xerr(d, n, "vcpu", cs, "Invalid value of 'cpuset': %s", cs);
	if (ret)
		free(cs);
	else
		def->vcpu_cpuset = cs;
	return ret;
}

static int domain_vcpu(xmlNode *root, struct domain_def *def, struct diag *d)
{
	xmlNode *n = xml_child(root, "vcpu");
	unsigned long long max = 1, cur;
	char *v, *c;
	int ret = 0;

	if (!n) {		/* libvirt's default: one vCPU */
		def->max_vcpus = def->vcpus = 1;
		return 0;
	}
	def->vcpu_line = xml_line(n);
	v = xml_text(n);
	if (parse_ull(v, &max) || max == 0)
		ret = xerr(d, n, "vcpu", v, "maximum vcpus count must be an integer");
	else if (max > DOMAIN_VCPUS_MAX)
		ret = xerr(d, n, "vcpu", v, "vsched supports at most %d vCPUs", DOMAIN_VCPUS_MAX);
	free(v);
	if (ret)
		return ret;
	cur = max;
	c = xml_prop(n, "current");
	if (c && parse_ull(c, &cur))
		ret = xerr(d, n, "vcpu", c, "Invalid value for attribute 'current' in element "
			   "'vcpu': '%s'. Expected non-negative integer value", c);
	free(c);
	/* current's range is checked by domain_vcpus(): <vcpus> may override it. */
	def->max_vcpus = (unsigned int)max;
	def->vcpus = cur > max ? (unsigned int)max + 1 : (unsigned int)cur;
	return ret ? ret : domain_vcpu_placement(root, n, def, d);
}

static int domain_iothreads(xmlNode *root, struct domain_def *def, struct diag *d)
{
	xmlNode *n = xml_child(root, "iothreads");
	unsigned long long v;
	char *s;
	int ret = 0;

	if (!n)
		return 0;
	s = xml_text(n);
	if (!s)
		return -ENOMEM;
	/* As libvirt: empty is no iothreads, anything else must be a whole number. */
	if (s[0] && (parse_ull(s, &v) || v > UINT32_MAX))
		ret = xerr(d, n, "iothreads", s, "invalid iothreads count '%s'", s);
	else if (s[0])
		def->iothreads.count = (unsigned int)v;
	free(s);
	return ret;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/*
 * <iothreadids><iothread id='N'/>: ids of iothreads (N > 0, each once); they count towards
 * <iothreads>, which libvirt raises to their number, and the rest get the lowest free ids.
 */
static int domain_iothreadids(xmlNode *root, struct domain_def *def, struct diag *d)
{
	xmlNode *ids = xml_child(root, "iothreadids"), *n;
	struct iothread_ids *io = &def->iothreads;
	unsigned long long v;
	unsigned int i, cap = 0;
	char *s;
	int ret = 0;

	for (n = ids ? ids->children : NULL; n && !ret; n = n->next) {
		if (!xml_is(n, "iothread"))
			continue;
		if (io->nr_given == cap) {
			unsigned int *g = realloc(io->given, (cap ? 2 * cap : 8) * sizeof(*g));

			if (!g)
				return -ENOMEM;
			io->given = g;
			cap = cap ? 2 * cap : 8;
		}
		s = xml_prop(n, "id");
		if (!s)
			ret = xerr(d, n, "iothread", NULL, "Missing 'id' attribute in <iothread> "
				   "element");
		else if (parse_ull(s, &v) || v == 0 || v > UINT32_MAX)
			ret = xerr(d, n, "iothread", s, "invalid iothread 'id' value '%s'", s);
		else
			io->given[io->nr_given++] = (unsigned int)v;
		free(s);
	}
	if (ret)
		return ret;
	if (io->nr_given > 1)
		qsort(io->given, io->nr_given, sizeof(*io->given), cmp_uint);
	for (i = 1; i < io->nr_given; i++)
		if (io->given[i] == io->given[i - 1])
			break;
	if (i < io->nr_given) {
		/* Named at the second element of that id, in document order. */
		unsigned int seen = 0;
		char buf[16];

		snprintf(buf, sizeof(buf), "%u", io->given[i]);
		for (n = ids->children; n; n = n->next) {
			if (!xml_is(n, "iothread") || (s = xml_prop(n, "id")) == NULL)
				continue;
			seen += !parse_ull(s, &v) && v == io->given[i];
			free(s);
			if (seen == 2)
				break;
		}
		return xerr(d, n, "iothread", buf, "Duplicate iothread id '%s' found", buf);
	}
	if (io->nr_given > io->count)
		io->count = io->nr_given;
	return 0;
}

/* virUUIDParse: 32 hex digits, dashes anywhere between pairs, blanks around. */
static int domain_uuid(xmlNode *root, struct domain_def *def, struct diag *d)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[16];
	xmlNode *n = xml_child(root, "uuid");
	char *s, *p;
	unsigned int i = 0, k;
	int ret = 0;

	if (!n)
		return 0;
	s = xml_text(n);
	if (!s)
		return -ENOMEM;
	/* virUUIDParse() skips blanks around the digits. */
	for (p = s; isspace((unsigned char)*p); p++)
		;
	for (; *p && i < 32; p++) {
		const char *h;

		if (*p == '-')
			continue;
		h = strchr(hex, *p >= 'A' && *p <= 'F' ? *p + 32 : *p);
		if (!h || !*p)
			break;
		if (i % 2 == 0)
			raw[i / 2] = (unsigned char)((h - hex) << 4);
		else
			raw[i / 2] |= (unsigned char)(h - hex);
		i++;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (i != 32 || *p)
		ret = xerr(d, n, "uuid", s, "malformed uuid element");
	free(s);
	if (ret)
		return ret;
	for (i = 0, k = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			def->uuid[k++] = '-';
		def->uuid[k++] = hex[raw[i] >> 4];
		def->uuid[k++] = hex[raw[i] & 15];
	}
	def->uuid[k] = '\0';
	return 0;
}

static int domain_os(xmlNode *root, struct domain_def *def)
{
	xmlNode *os = xml_child(root, "os"), *n;

	if (!os)
		return 0;
	if ((n = xml_child(os, "kernel")) && !(def->kernel = xml_text(n)))
		return -ENOMEM;
	if ((n = xml_child(os, "initrd")) && !(def->initrd = xml_text(n)))
		return -ENOMEM;
	if ((n = xml_child(os, "cmdline")) && !(def->cmdline = xml_text(n)))
		return -ENOMEM;
	return 0;
}

static int domain_name(xmlNode *root, struct domain_def *def, struct diag *d)
{
	xmlNode *n = xml_child(root, "name");

	if (!n)
		return xerr(d, root, "domain", NULL, "missing domain name information");
	def->name = xml_text(n);
	if (!def->name)
		return -ENOMEM;
	def->name_line = xml_line(n);
	if (!*def->name)
		return xerr(d, n, "name", "", "missing domain name information");
	/* libvirt's virXMLCheckIllegalChars("name", ..., "\n"); a tab is accepted there. */
	if (strchr(def->name, '\n'))
		return xerr(d, n, "name", NULL, "invalid char in name: '\\n' (a newline)");
	if (strchr(def->name, '/'))
		return xerr(d, n, "name", def->name, "name %s cannot contain '/'", def->name);
	if (!strcmp(def->name, ".") || !strcmp(def->name, ".."))
		return xerr(d, n, "name", def->name, "name %s is not a valid domain name",
			    def->name);
	return 0;
}

/* <domain type=...>: the hypervisor. libvirt's QEMU driver knows 'kvm' (KVM) and 'qemu' (no
 * KVM: TCG there, vsched's thread backend here). Optional: without it the caller decides. */
static int domain_type(xmlNode *root, struct domain_def *def, struct diag *d)
{
	char *type = xml_prop(root, "type");
	int ret = 0;

	if (type && strcmp(type, "kvm") && strcmp(type, "qemu"))
		ret = xerr(d, root, "domain", type, "domain type '%s': vsched runs type 'kvm' "
			   "(KVM) or 'qemu' (no KVM: host threads)", type);
	else if (type)
		snprintf(def->type, sizeof(def->type), "%s", type);
	free(type);
	return ret;
}

/*
 * The elements read here are read once, the first of each (libvirt's XPath "name[1]"); a second
 * one is ignored, and said so, so that a setting in it is not dropped without a word.
 */
static int domain_warn_repeats(xmlNode *root, struct diag *d)
{
	static const char *const once[] = { "name", "uuid", "vcpu", "iothreads", "memory", "os",
					    "resource", "cputune", "metadata" };
	xmlNode *n, *first;
	size_t i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(once) && !ret; i++) {
		first = xml_child(root, once[i]);
		for (n = first ? first->next : NULL; n && !ret; n = n->next)
			if (xml_is(n, once[i]))
				ret = xwarn(d, n, once[i], "only the first <%s> is read (line %d); "
					    "this one is ignored", once[i], xml_line(first));
	}
	return ret;
}

int domain_parse_doc(xmlDoc *doc, struct domain_def *def, struct diag *d)
{
	xmlNode *root = xmlDocGetRootElement(doc);
	int ret;

	/* Said as such: "<domain>, expecting <domain>" would not tell what is wrong. */
	if (root && root->ns && !strcmp((const char *)root->name, "domain"))
		return xerr(d, root, "domain", NULL, "unexpected root element <domain> in "
			    "namespace '%s', expecting <domain> without a namespace",
			    root->ns->href ? (const char *)root->ns->href : "");
	if (!root || !xml_is(root, "domain"))
		return xerr(d, root, root ? (const char *)root->name : "?", NULL,
			    "unexpected root element <%s>, expecting <domain>",
			    root ? (const char *)root->name : "");
	ret = domain_warn_repeats(root, d);
	if (!ret)
		ret = vgroups_warn_stray(root, d);
	if (!ret)
		ret = domain_name(root, def, d);
	if (!ret)
		ret = domain_type(root, def, d);
	if (!ret)
		ret = domain_uuid(root, def, d);
	if (!ret)
		ret = domain_vcpu(root, def, d);
	if (!ret)
		ret = domain_vcpus(root, def, d);
	if (!ret)
		ret = domain_iothreads(root, def, d);
	if (!ret)
		ret = domain_iothreadids(root, def, d);
	if (!ret)
		ret = domain_memory(root, def, d);
	if (!ret)
		ret = domain_os(root, def);
	if (!ret)
		ret = partition_parse(root, &def->partition, &def->partition_line, d);
	if (!ret)
		ret = cputune_parse(xml_child(root, "cputune"), def->max_vcpus, &def->iothreads,
				    &def->tune, d);
	if (!ret)
		ret = vgroups_parse(xml_child(root, "metadata"), def->max_vcpus, &def->groups, d);
	if (!ret)
		domain_knobs(root, def);
	return ret;
}

void domain_free(struct domain_def *def)
{
	free(def->name);
	free(def->kernel);
	free(def->initrd);
	free(def->cmdline);
	free(def->partition);
	free(def->vcpu_cpuset);
	free(def->iothreads.given);
	cputune_free(&def->tune);
	vgroups_free(&def->groups);
	memset(def, 0, sizeof(*def));
}
