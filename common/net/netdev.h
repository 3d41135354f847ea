/* netdev: a network namespace's interfaces and their counters, from
 * /proc/PID/net/dev, which shows the namespace of process PID to any
 * reader (no setns, no capability: procfs looks the namespace up through
 * the task, checked on Linux 6.18 as nobody with no capability, of a root
 * process in a namespace of its own).
 *
 * The file is a seq_file: a read gives at most about a page of it
 * (measured on Linux 6.18: 4013, 4059 and 2091 bytes for 81 interfaces),
 * so it is read to its end, within a bound of the caller's, never past it.
 *
 * Its layout (net/core/net-procfs.c): two lines of header, then one line
 * per interface, in ifindex order: the name right-aligned in six columns
 * and a colon, then 16 decimal counters, 8 of receive (bytes, packets,
 * errs, drop, fifo, frame, compressed, multicast) and 8 of transmit
 * (bytes, packets, errs, drop, fifo, colls, carrier, compressed). The
 * counters are the kernel's; the names are whoever made the interface's:
 * 1 to 15 bytes, none a colon, a '/' or a space of the kernel's isspace
 * (checked on Linux 6.18: 0xa0 is refused, a name of a control byte, a
 * DEL or bytes that are no UTF-8 is accepted),
 * so a name is read up to the first colon and taken as bytes, never text.
 * The parser is strict: a line that is not of that layout makes the whole
 * file refused (its sums would be a part of the namespace's); a last line
 * cut short (no newline) is left out and said. */
#ifndef PROCTREE_NETDEV_H
#define PROCTREE_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* IFNAMSIZ: a name is at most 15 bytes. */
#define PT_NETDEV_NAME_MAX 16
/* The most interfaces one reading holds, and the most bytes of net/dev
 * read (an interface's line is about 110 bytes: 64 KiB is about 590 of
 * them); past either the reading is refused. */
#define PT_NETDEV_MAX 512
#define PT_NETDEV_READ_MAX (64 * 1024)

struct pt_netdev_if {
    char name[PT_NETDEV_NAME_MAX]; /* NUL-terminated bytes, 1..15 of them */
    uint64_t rx_bytes, rx_packets, tx_bytes, tx_packets;
};

/* Parse net/dev's text buf[0..len) (not NUL-terminated) into out[0..max):
 * the interfaces in the file's order, each counter clamped to
 * PT_MAX_COUNT. *cut (when not NULL) says a last line had no newline and
 * was left out. Returns the number of interfaces, or -1 when the text is
 * not net/dev's layout (no header, a line of another form, a name empty,
 * too long or given twice, a counter that is no number or past uint64)
 * or holds more than max interfaces. */
int pt_netdev_parse(const char *buf, size_t len, struct pt_netdev_if *out, size_t max, bool *cut);

/* Read PID/net/dev below the proc root proc_root_fd (opened confined to
 * it, procfile.h) to its end into buf[0..cap). Returns its length, -E2BIG
 * when it does not end within cap bytes, or -errno (ENOENT: the process
 * is gone, or exiting and without namespaces). */
ssize_t pt_netdev_read(int proc_root_fd, pid_t pid, char *buf, size_t cap);

#endif
