# The control-directory test harness (tests/ctl/harness.c): a group tree with idle vCPU threads,
# mounted like a VM's directory. Integration tests t-ctl-*.sh use it; it is no part of vsched.
CTL_HARNESS := $(BUILD)/vsched-ctl-harness

$(CTL_HARNESS): tests/ctl/harness.c $(BUILD)/libvsched.a
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libvsched.a $(LDLIBS)

integration: $(CTL_HARNESS)
