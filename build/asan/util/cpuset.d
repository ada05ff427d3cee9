build/asan/util/cpuset.o: util/cpuset.c include/util/cpuset.h
include/util/cpuset.h:
