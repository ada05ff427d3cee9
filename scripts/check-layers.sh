#!/usr/bin/env bash
# check-layers.sh [ROOT]: fails, naming file and line, when an #include "..." crosses a folder
# boundary the layering does not allow. `make layers` runs it (the first step of `make check`);
# docs/architecture.md quotes the table below, the one place the layering is written down.
#
# A module is its source folder and its headers under include/; the longest match names the
# module of a file. A module may include itself and what its last column lists: modules, or
# single headers (a path under include/). "*" allows everything. tests/, bench/ and fuzz/
# drive every layer and are not checked.
set -u
read -r -d '' LAYERS <<'EOF'
# module         sources          headers                  may include
util             util/            include/util/            -
sched            sched/           include/sched/           util api
sched/runtime    sched/runtime/   include/sched/runtime.h  sched util api vmm/vcpu_sched.h vmm/vm.h vmm/vcpu.h vmm/kick.h host/proto.h
vmm              vmm/             include/vmm/             util
ctl              ctl/             include/ctl/             util api
libvirt-hooks    libvirt-hooks/   include/libvirt/         util api
host             host/            include/host/            util sched api
api              -                include/vsched.h         -
cmd              cmd/             include/cmd/             *
EOF

root=${1:-.}
cd "$root" || exit 2
files=$(find util sched vmm ctl libvirt-hooks host cmd include -name '*.[ch]' 2>/dev/null | sort)
# shellcheck disable=SC2086
grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $files /dev/null |
awk -v layers="$LAYERS" -v files="$files" '
function module_of(path,    i, best, len, k) {
	best = ""; len = 0
	for (i = 1; i <= nm; i++)
		for (k = 2; k <= 3; k++)
			if (col[i, k] != "-" && index(path, col[i, k]) == 1 &&
			    length(col[i, k]) > len) {
				best = i; len = length(col[i, k])
			}
	return best
}
# dir/inc with "." and ".." folded, as the compiler resolves a quoted include.
function resolve(dir, inc,    n, p, out, i, m, o) {
	n = split(dir "/" inc, p, "/"); m = 0
	for (i = 1; i <= n; i++) {
		if (p[i] == "" || p[i] == ".") continue
		if (p[i] == ".." && m > 0 && o[m] != "..") { m--; continue }
		o[++m] = p[i]
	}
	out = ""
	for (i = 1; i <= m; i++) out = out (i > 1 ? "/" : "") o[i]
	return out
}
BEGIN {
	n = split(layers, rows, "\n")
	for (r = 1; r <= n; r++) {
		if (rows[r] ~ /^#/ || rows[r] ~ /^[[:space:]]*$/) continue
		nf = split(rows[r], f, /[[:space:]]+/)
		nm++
		col[nm, 1] = f[1]; col[nm, 2] = f[2]; col[nm, 3] = f[3]
		allow[nm] = ""
		for (k = 4; k <= nf; k++) allow[nm] = allow[nm] (k > 4 ? " " : "") f[k]
	}
	nfiles = split(files, fl, "\n")
	for (i = 1; i <= nfiles; i++) exists[fl[i]] = 1
}
{
	file = $0; sub(/:.*/, "", file)
	rest = substr($0, length(file) + 2)
	line = rest; sub(/:.*/, "", line)
	inc = rest; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
	from = module_of(file)
	if (from == "" || allow[from] == "*") next
	dir = file; sub(/\/[^\/]*$/, "", dir)
	target = resolve(dir, inc)
	if (!(target in exists)) target = resolve("include", inc)
	if (!(target in exists)) next		# generated (build/gen) or a system header
	to = module_of(target)
	if (to == "" || to == from) next
	na = split(allow[from], a, " ")
	for (k = 1; k <= na; k++)
		if (a[k] == col[to, 1] || a[k] == inc) next
	printf "%s:%s: #include \"%s\": %s may not include %s (allowed: %s; scripts/check-layers.sh)\n",
	       file, line, inc, col[from, 1], col[to, 1], allow[from] > "/dev/stderr"
	bad = 1
}
END { exit bad }
' || exit 1
echo "layers: $(echo "$files" | wc -l) files, no include crosses a boundary"
