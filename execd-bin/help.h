/* help: what proctree-execd says about its options, from the option
 * table (optiontable.h): --help for people, --list-options for scripts. */
#ifndef PROCTREE_EXECD_HELP_H
#define PROCTREE_EXECD_HELP_H

#include <stdio.h>

void execd_print_help(FILE *out);

/* One line per option of either frontend, tab-separated: the execd
 * option (--name), the collectd key, the scope (selector, target or
 * global) and the kind of value; "-" where a frontend has none. */
void execd_print_option_list(FILE *out);

#endif
