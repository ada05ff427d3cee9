build/asan/tests/unit/test_cpuset.o: tests/unit/test_cpuset.c \
 tests/unit/test.h include/util/cpuset.h
tests/unit/test.h:
include/util/cpuset.h:
