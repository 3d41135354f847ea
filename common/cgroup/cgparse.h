/* cgparse: scanners for the cgroup filesystem's files (the kernel's
 * formats, Documentation/admin-guide/cgroup-v2.rst and the v1 docs).
 *
 * As procfile.h: a file's content may be made by someone else (a
 * delegated cgroup's owner cannot write these files, but a fake sys root
 * can), so every parser takes (buf, len) without a NUL, never reads past
 * len, does not allocate, and clamps what it adds up at PT_MAX_COUNT. */
#ifndef PROCTREE_CGPARSE_H
#define PROCTREE_CGPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A "flat keyed" file, one "KEY VALUE" a line (cpu.stat, memory.events,
 * memory.stat, v1's cpu.stat, memory.oom_control): the value of key, or
 * -1 when no line has it (or its value is no number). */
int pt_cgparse_keyed(const char *buf, size_t len, const char *key, uint64_t *out);

/* A single number and a newline (memory.current, pids.current,
 * memory.peak, v1's memory.usage_in_bytes): -1 for anything else, "max"
 * included. */
int pt_cgparse_single(const char *buf, size_t len, uint64_t *out);

/* A pressure file (cpu.pressure, memory.pressure, io.pressure):
 *     some avg10=0.00 avg60=0.00 avg300=0.00 total=N
 *     full avg10=0.00 avg60=0.00 avg300=0.00 total=N
 * total in microseconds. has_full is false when there is no full line
 * (cpu.pressure before Linux 5.13). -1 without a some line. */
int pt_cgparse_pressure(const char *buf, size_t len, uint64_t *some_us, uint64_t *full_us, bool *has_full);

/* io.stat, one line a device, "MAJ:MIN rbytes=N wbytes=N rios=N ...":
 * rbytes and wbytes summed over the devices (no line: 0, no I/O yet). */
int pt_cgparse_io_stat(const char *buf, size_t len, uint64_t *read_bytes, uint64_t *write_bytes);

/* v1's blkio.throttle.io_service_bytes, "MAJ:MIN Read N" ... and a last
 * "Total N": Read and Write summed over the devices. */
int pt_cgparse_blkio_bytes(const char *buf, size_t len, uint64_t *read_bytes, uint64_t *write_bytes);

/* Does a v1 blkio.throttle.* stat file list a device (a "MAJ:MIN ..."
 * line)? The kernel prints a device's lines only where it counts that
 * device's I/O (blkiocount.h); a file of nothing but "Total N" lists none. */
bool pt_cgparse_blkio_lists_device(const char *buf, size_t len);

#endif
