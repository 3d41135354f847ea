/* collectorconfig, the library's part: the source's keywords, and the proc
 * root opened and confined (proctree/collectorconfig.h: the configuration
 * and the frontends' checks of it). */
#ifndef PROCTREE_COLLECTOR_COLLECTORCONFIG_H
#define PROCTREE_COLLECTOR_COLLECTORCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "proctree/collectorconfig.h"
#include "report/totals.h"
#include "report/units.h"

/* "auto", "procfs" or "bpf"; -1 for anything else. */
int pt_collector_source_parse(const char *text, enum pt_source *out);
const char *pt_collector_source_name(enum pt_source source);

/* The proc root's directory, once it looks like a proc filesystem; or
 * -1 with a one-line reason in err. Opened with the caller's own
 * permissions (pt_callerfiles_open), as the sys root is checked. */
int pt_collector_open_proc_root(const char *root, char *err, size_t errlen);

/* Capabilities lend nothing: where the binary lends some (file
 * capabilities that pt_caps_raise raised), the proc root they read must
 * be a proc filesystem, each file below it opened confined to it
 * (procfile.h: openat2), and one the caller chose (chosen: an option, an
 * environment variable) read across no mount. Anything else (a directory
 * any user can fill with links, a kernel before openat2) gives the lent
 * capabilities up for good before anything below it is read, said in one
 * line. Returns 0, or -1 with a one-line reason in err where they could
 * not be given up (nothing is then to be read). A pid file, a cgroup's
 * path, the sys root and every file below them are opened with the
 * caller's own permissions wherever they are (callerfiles.h). */
int pt_collector_lend_nothing(int proc_root_fd, const char *root, bool chosen, char *err, size_t errlen);

#endif
