/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the apply plan's test files: the groups namespace and a domain with all of it. */
#ifndef VSCHED_TESTS_LIBVIRT_PLAN_TEST_H
#define VSCHED_TESTS_LIBVIRT_PLAN_TEST_H

#include "libvirt_util.h"

#define NS "https://vsched.dev/xmlns/groups/1.0"

static const char dom_full[] =
	DOM_HEAD("3")
	"<cputune><shares>300</shares><period>100000</period><quota>50000</quota>\n"
	"<global_quota>250000</global_quota><vcpusched vcpus='2' scheduler='idle'/></cputune>\n"
	"<metadata><v:groups xmlns:v='" NS "'>\n"
	"<v:group name='fast' weight='400' quota='150000' burst='10000'/>\n"
	"<v:group name='bg' parent='fast' idle='yes'/>\n"
	"<v:assign vcpus='0' group='fast'/><v:assign vcpus='1' group='bg'/>\n"
	"</v:groups></metadata></domain>";

#endif
