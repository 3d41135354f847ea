/* CHECK: an invariant of a harness. A violation aborts, which libFuzzer
 * reports as a crash and saves the input that caused it. */
#ifndef PROCTREE_FUZZ_CHECK_H
#define PROCTREE_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__, #cond);                             \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

#endif
