build/tests/unit/test_list.o: tests/unit/test_list.c tests/unit/test.h \
 include/util/list.h
tests/unit/test.h:
include/util/list.h:
