/* preads: the smaps_rollup reads this program makes (the library's), counted
 * by their first pread (at offset 0), then made by the kernel. The test
 * program linking preads.c gets pread (pread64) from it, as test_alloc.c
 * gets the allocator from itself. */
#ifndef PROCTREE_TEST_PREADS_H
#define PROCTREE_TEST_PREADS_H

/* The reads of a file named smaps_rollup so far (failed ones too). */
long unit_smaps_reads(void);

#endif
