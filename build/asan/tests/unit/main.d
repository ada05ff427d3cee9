build/asan/tests/unit/main.o: tests/unit/main.c tests/unit/test.h
tests/unit/test.h:
