#include "delayacct.h"

#include <unistd.h>

#include "base.h"
#include "procfile.h"

void pt_delayacct_init(struct pt_delayacct *d)
{
    d->said = -1;
}

bool pt_delayacct_on(struct pt_delayacct *d, int proc_root_fd)
{
    char text[16];
    ssize_t n = -1;
    int fd = pt_open_at(proc_root_fd, "sys/kernel/task_delayacct");
    if (fd >= 0) {
        n = pread(fd, text, sizeof(text), 0);
        close(fd);
    }
    bool known = n > 0, on = known && text[0] == '1';
    if (d->said == (int)on)
        return on;
    if (on)
        pt_logf(PT_LOG_INFO, "kernel.task_delayacct is 1%s: proc_blkio_delay_seconds is reported",
                d->said < 0 ? "" : " now");
    else if (known)
        pt_logf(PT_LOG_INFO,
                "kernel.task_delayacct is 0%s: proc_blkio_delay_seconds is left out until it is 1 "
                "(sysctl kernel.task_delayacct=1; the kernel then times every task's block-I/O waits)",
                d->said < 0 ? "" : " now");
    else if (d->said < 0)
        pt_logf(PT_LOG_INFO, "no kernel.task_delayacct (a kernel before 5.14, or without delay accounting): "
                             "proc_blkio_delay_seconds is left out");
    d->said = (int)on;
    return on;
}
