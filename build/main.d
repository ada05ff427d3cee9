build/main.o: main.c include/cmd.h include/util/compiler.h
include/cmd.h:
include/util/compiler.h:
