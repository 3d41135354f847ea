/* sockscan: the sockets among a process's descriptors, by the inode
 * each fd/ entry's link names ("socket:[INODE]"), read with readlinkat
 * below the proc root (never followed). */
#ifndef PROCTREE_SOCKSCAN_H
#define PROCTREE_SOCKSCAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The inode a link's text buf[0..len) names when it is a socket's
 * ("socket:[12345]", digits only, no more than fit 64 bits), else 0. */
uint64_t pt_sockscan_inode_parse(const char *buf, size_t len);
/* The same for a network namespace's link ("net:[4026531840]"). */
uint64_t pt_sockscan_netns_inode_parse(const char *buf, size_t len);

/* The network namespace of process pid under the proc root proc_root_fd
 * (its ns/net link, read with readlinkat, never followed; pid 0: our
 * own, /proc/self's), or 0 when it cannot be read (gone; another user's
 * without CAP_SYS_PTRACE). */
uint64_t pt_sockscan_netns_of(int proc_root_fd, pid_t pid);

/* fn for each socket among the descriptors of process pid (under the
 * proc root proc_root_fd), each link read taking one of *reads_left: the
 * walk stops when none is left. Returns the sockets found, or -errno
 * when the process's fd/ cannot be read (gone, denied). */
long pt_sockscan(int proc_root_fd, pid_t pid, size_t *reads_left, void (*fn)(uint64_t inode, void *arg), void *arg);

#endif
