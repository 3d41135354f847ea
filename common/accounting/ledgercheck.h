/* ledgercheck: the ledger's invariants (ledger.h's header) checked. */
#ifndef PROCTREE_LEDGERCHECK_H
#define PROCTREE_LEDGERCHECK_H

#include <stddef.h>

#include "accounting/ledger.h"

/* Do the invariants hold, with live the live accounts? 0, or -1 with why. */
int pt_ledgercheck(const struct pt_ledger *l, const struct pt_account *const *live, size_t n, char *why, size_t whylen);

#endif
