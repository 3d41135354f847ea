/* kvparse: the /proc files of "Key: value [kB]" lines (io, status,
 * smaps_rollup, meminfo), each described by a table of the lines wanted,
 * found in any order, each once. The rules of every /proc parser are
 * procfile.h's. */
#ifndef PROCTREE_KVPARSE_H
#define PROCTREE_KVPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* /proc/PID/io. All seven fields are required. */
struct pt_io {
    uint64_t rchar, wchar, syscr, syscw;
    uint64_t read_bytes, write_bytes, cancelled_write_bytes;
};
int pt_kvparse_io(const char *buf, size_t len, struct pt_io *out);

/* /proc/PID/status and /proc/PID/task/TID/status: the lines proctree
 * uses. All are required. uid: real and effective, from "Uid:". */
struct pt_status {
    uint64_t voluntary_ctxt_switches, nonvoluntary_ctxt_switches;
    uid_t real_uid, effective_uid;
};
int pt_kvparse_status(const char *buf, size_t len, struct pt_status *out);

/* /proc/PID/smaps_rollup, in bytes. Rss and Pss are required; the others
 * default to 0 when absent (older kernels lack some lines). */
struct pt_smaps_rollup {
    uint64_t rss, pss;
    uint64_t shared_clean, shared_dirty, private_clean, private_dirty;
    uint64_t swap;
};
int pt_kvparse_smaps_rollup(const char *buf, size_t len, struct pt_smaps_rollup *out);

/* /proc/meminfo, in bytes. MemTotal and MemFree are required; has_available
 * says whether MemAvailable was present (kernel >= 3.14). */
struct pt_meminfo {
    uint64_t mem_total, mem_free, mem_available, buffers, cached;
    uint64_t anon_pages, swap_total, swap_free;
    bool has_available;
};
int pt_kvparse_meminfo(const char *buf, size_t len, struct pt_meminfo *out);

#endif
