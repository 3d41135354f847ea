/* units: memory units and durations (what the options accept; lines.h
 * turns raw sums into report values in them).
 *
 * Memory units are binary, as /proc counts them: kB = 1024 bytes,
 * MB = 1024 kB, GB = 1024 MB. Memory in bytes or kB is reported as an
 * integer (pages are whole kB); in MB or GB as a float.
 *
 * This is the frontends' part; report/units.h, which includes it, the
 * library's rest (the parsers of the options' text). */
#ifndef PROCTREE_UNITS_H
#define PROCTREE_UNITS_H

enum pt_mem_unit { PT_MEM_BYTES, PT_MEM_KB, PT_MEM_MB, PT_MEM_GB };

/* "bytes", "kB", "MB" or "GB". */
const char *pt_units_mem_name(enum pt_mem_unit unit);
/* How many bytes one of unit is (1, 1024, 1024^2, 1024^3): a value in
 * unit back in bytes, for a renderer that picks its own. */
double pt_units_mem_bytes(enum pt_mem_unit unit);

/* The range of every duration option (optiontable.h), in milliseconds.
 * 1 ms: a poll reads every member's statm, which takes longer than that
 * for any real tree, so a finer cadence is only a busy loop (and a
 * read timed against a finer PSS budget would be judged by whether the
 * scheduler preempted it); and a
 * deadline 1 ms after CLOCK_MONOTONIC's now, in double seconds, stays
 * after it for 2^43 s of uptime (1 ns did not past 2^24 s, 194 days).
 * The tick keeps no finer cadence whatever it is given. 24 h: no batch,
 * poll or budget is meant to be longer, and now + 24 h fits every
 * conversion (time_t, a timespec, poll's int milliseconds, the table's
 * unsigned long even where it has 32 bits). */
#define PT_DURATION_MIN_MS 1UL
#define PT_DURATION_MAX_MS (24UL * 3600 * 1000)

/* How a catalog unit renders: memory follows the configured units. */
struct pt_units {
    enum pt_mem_unit proc_memory;
    enum pt_mem_unit global_memory;
};

#endif
