#!/usr/bin/env bash
# Source-based coverage of one fuzz target over its committed corpus (docs/fuzzing.md "fuzzlong").
# Usage: fuzz/cov.sh TARGET [SOURCE...]: builds the library and the target into build/cov with
# clang -fprofile-instr-generate -fcoverage-mapping (no sanitizer), runs it once over
# fuzz/corpus/TARGET (and any further directories in COV_DIRS), prints llvm-cov's report of
# SOURCE (default: the whole library) and the functions of SOURCE never reached.
set -eu
cd "$(dirname "$0")/.."
t=$1
shift
srcs=("$@")
[ ${#srcs[@]} -gt 0 ] || srcs=(host sched ctl util libvirt-hooks vmm)
dir=build/cov
cflags="$(make -s --no-print-directory fuzz-var-FUZZ_CFLAGS | sed 's/-fsanitize=address,undefined//;
	s/-fno-sanitize-recover=all//') -fprofile-instr-generate -fcoverage-mapping"
parts=$(make -s --no-print-directory "fuzz-var-FUZZ_PARTS_$t")
objs=("$dir/fuzz/$t.o" "$dir/fuzz/fuzz_util.o")
for p in $parts; do
	objs+=("$dir/${p%.c}.o")
done
nice -n 19 make -s -j2 FUZZ_DIR=$dir FUZZ_CFLAGS="$cflags" "${objs[@]}" $dir/libcmd.a \
	$dir/libvsched.a
# shellcheck disable=SC2086,SC2046
nice -n 19 clang $cflags -fsanitize=fuzzer -o "$dir/fuzz-$t" "${objs[@]}" $dir/libcmd.a \
	$dir/libvsched.a $(make -s --no-print-directory fuzz-var-LDLIBS)
rm -f "$dir/$t.profraw"
# shellcheck disable=SC2086
LLVM_PROFILE_FILE=$dir/$t.profraw nice -n 19 $dir/fuzz-$t -runs=0 fuzz/corpus/$t \
	${COV_DIRS:-} >/dev/null 2>&1
llvm-profdata-14 merge -o "$dir/$t.profdata" "$dir/$t.profraw"
llvm-cov-14 report "$dir/fuzz-$t" -instr-profile="$dir/$t.profdata" "${srcs[@]}"
echo "never reached (functions whose every region was missed):"
llvm-cov-14 report -show-functions "$dir/fuzz-$t" -instr-profile="$dir/$t.profdata" "${srcs[@]}" |
	awk '/^File / { f = $2; gsub(/^.*\/|[\047:]/, "", f) }
	     NF >= 7 && $2 ~ /^[0-9]+$/ && $2 > 0 && $2 == $3 { print "  " f ": " $1 }'
