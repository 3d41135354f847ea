/* openats: every open, openat and openat2 this program makes (the
 * library's and the test's own), counted, then made by the kernel. The test program
 * linking openats.c defines the entry points itself, as test_alloc.c
 * does the allocator's. */
#ifndef PROCTREE_TEST_OPENATS_H
#define PROCTREE_TEST_OPENATS_H

/* The opens made so far (failed ones too). */
long unit_openats(void);

#endif
