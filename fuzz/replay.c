// SPDX-License-Identifier: GPL-2.0
/*
 * A fuzz target without libFuzzer: feeds every file named on the command line (a directory:
 * every file in it, sorted) to LLVMFuzzerTestOneInput() once. Built with gcc and ASan+UBSan,
 * `make check` replays the committed corpus through every target with it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0;
	int ret;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	/* Corpus files are a few KiB; libFuzzer's own inputs are bounded by -max_len. */
	buf = malloc(1 << 20);
	if (buf)
		len = fread(buf, 1, 1 << 20, f);
	ret = !buf || ferror(f) || !feof(f) ? -1 : 0;
	fclose(f);
	if (ret)
		fprintf(stderr, "%s: unreadable or larger than 1 MiB\n", path);
	else
		LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	free(buf);
	return ret;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay_path(const char *path, unsigned int *nr)
{
	struct dirent **ents;
	struct stat st;
	int i, n, ret = 0;

	if (stat(path, &st)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		++*nr;
		return replay_file(path);
	}
	n = scandir(path, &ents, NULL, by_name);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		char *sub;

		if (ents[i]->d_name[0] != '.' &&
		    asprintf(&sub, "%s/%s", path, ents[i]->d_name) > 0) {
			ret |= replay_path(sub, nr);
			free(sub);
		}
		free(ents[i]);
	}
	free(ents);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned int nr = 0;
	int i, ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++)
		ret |= replay_path(argv[i], &nr);
	if (!nr) {
		fprintf(stderr, "%s: no input files\n", argv[0]);
		return 1;
	}
	printf("%s: %u inputs replayed%s\n", argv[0], nr, ret ? ", some unreadable" : "");
	return ret ? 1 : 0;
}
