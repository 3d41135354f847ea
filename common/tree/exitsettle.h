/* exitsettle: the last moments of the members that departed since the
 * last drain (see exitsettle.c), for exits.c. */
#ifndef PROCTREE_EXITSETTLE_H
#define PROCTREE_EXITSETTLE_H

#include "tree/membership.h"
#include "tree/targetstate.h"

/* Every departure of t's settled into mp's ledger, then forgotten. */
void pt_exitsettle_departures(const struct pt_target *t, const struct pt_membership_parts *mp);

#endif
