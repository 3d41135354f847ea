/* saturate: the one way proctree adds and subtracts the amounts it reads.
 *
 * /proc values are clamped when parsed (procfile.h), but sums over
 * members, over threads and over time can still reach the end of int64 on
 * a fake or hostile proc root. Signed overflow is undefined behaviour, and
 * a wrapped sum is a silent wrong number (two members of 2^62 pages once
 * summed to 0), so every such sum saturates at INT64_MAX / INT64_MIN. */
#ifndef PROCTREE_SATURATE_H
#define PROCTREE_SATURATE_H

#include <stdint.h>

static inline int64_t pt_sat_add(int64_t a, int64_t b)
{
    int64_t sum;
    if (!__builtin_add_overflow(a, b, &sum))
        return sum;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

static inline int64_t pt_sat_sub(int64_t a, int64_t b)
{
    int64_t difference;
    if (!__builtin_sub_overflow(a, b, &difference))
        return difference;
    return b < 0 ? INT64_MAX : INT64_MIN;
}

/* For a scale of a count (ticks to nanoseconds): a and b not negative. */
static inline int64_t pt_sat_mul(int64_t a, int64_t b)
{
    int64_t product;
    if (!__builtin_mul_overflow(a, b, &product))
        return product;
    return INT64_MAX;
}

#endif
