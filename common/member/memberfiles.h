/* memberfiles: a member's files, each kept open while the descriptor
 * budget allows or opened for one read, and the identity check that
 * vouches for a read by path (member.h's reads go through them). */
#ifndef PROCTREE_MEMBERFILES_H
#define PROCTREE_MEMBERFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/buf.h"
#include "member/memberstate.h"
#include "procfs/procfile.h"

/* Is err (-errno) a lack of descriptors, ours or the system's? */
bool pt_member_out_of_fds(int err);

/* An open() or read() error as a read result. */
enum pt_read pt_member_read_error(int err);

/* Close a kept descriptor and give it back to the budget. */
void pt_member_drop_file(struct pt_member *m, enum pt_member_file f);

/* A read of file f ended with r and err (-errno, 0 when none). Where the
 * permissions kept it from us (EACCES, EPERM) from a process that lives
 * on, note it (what), so it is not tried again, and return r. A process
 * that is exiting or gone is refused too, whoever asks (see memberfiles.c):
 * that is no permission problem, and nothing is noted: PT_READ_GONE when
 * it is gone, else PT_READ_FAILED. Any other r is returned as it is. */
enum pt_read pt_member_note_denied(struct pt_member *m, int proc_root_fd, int err, enum pt_member_file f,
                                   enum pt_denied what, enum pt_read r);

/* Open "<pid>/<file>" under the proc root. Returns fd or -errno. */
int pt_member_open_by_path(const struct pt_member *m, int proc_root_fd, enum pt_member_file f);

/* A descriptor of file f for one read: the kept one; or a new one, kept
 * when the budget allows (*transient false; vouched for by the identity
 * check before it is kept, but for stat, whose reader compares its
 * starttime) or to be closed by the caller with pt_member_end_transient()
 * after its read (*transient true). A kept one whose rank the budget
 * wants back (pt_fdbudget_over) is handed out for this last read as a
 * transient one. -errno when the file cannot be opened. */
int pt_member_file_fd(struct pt_member *m, int proc_root_fd, enum pt_member_file f, bool *transient);

/* Is the member still the process it was? Through the kept stat
 * descriptor (ESRCH once reaped), else by path with the starttime
 * compared; the stat read goes to *now when it is not NULL. Reads into
 * its own buffer: the caller's holds data. */
enum pt_read pt_member_check_identity_stat(const struct pt_member *m, int proc_root_fd, struct pt_stat *now);

/* The same, the stat read not kept: through the kept statm when it is
 * on procfs (it reads ESRCH once the member is reaped, before its pid can
 * be another's: 1 us against 4 for stat), else the above. */
enum pt_read pt_member_check_identity(const struct pt_member *m, int proc_root_fd);

/* Close a descriptor pt_member_file_fd() did not keep, and vouch for
 * what was read through it (see member.h). */
enum pt_read pt_member_end_transient(const struct pt_member *m, int proc_root_fd, int fd, enum pt_read r);

/* Read a single-record file f into buf. GONE on ESRCH/ENOENT, NO_FDS when
 * it cannot be opened for lack of descriptors, FAILED on any other error
 * or an empty file (settled by the caller). *err gets the open's or the
 * read's -errno (0 when both worked), for the callers that note denials. */
enum pt_read pt_member_read_file(struct pt_member *m, int proc_root_fd, enum pt_member_file f, struct pt_buf *buf,
                                 size_t *len, int *err);

/* A read failed without saying ESRCH: the file was empty or unparseable.
 * On procfs that does not happen to a live process, but a fixture tree
 * (and a pid reused under our feet) can show it, so decide by the
 * member's identity (pt_member_check_identity): still itself, the read
 * failed. */
enum pt_read pt_member_settle_failure(const struct pt_member *m, int proc_root_fd);

/* A thread's file was read by path: vouch for the member after reading
 * (see member.h); no descriptor is the read's own failure. */
enum pt_read pt_member_end_thread_reads(const struct pt_member *m, int proc_root_fd, bool no_fds);

#endif
