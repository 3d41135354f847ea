/* collectortick: the collector's cadences, what each tick runs (events
 * drained, discovery, the polls, PSS samples, exit records, in that
 * order) and the interval's end that turns them into a batch. */
#ifndef PROCTREE_COLLECTORTICK_H
#define PROCTREE_COLLECTORTICK_H

#include "proctree/batch.h"

struct pt_collector;

/* Open the kernel's process events and exit records now, rather than at
 * the first tick. A frontend that starts the process it follows (launch
 * mode) calls it before the start: every fork of the command then waits in
 * the socket until the first tick, whose discovery joins the command
 * before that drain follows its forks, so none is missed. */
void pt_collector_listen(struct pt_collector *c);

/* Run what is due at time now (first call: discovery + first sample).
 * Returns the next deadline. */
double pt_collector_tick(struct pt_collector *c, double now);

/* End the interval of every target and of the global sampler. */
const struct pt_batch *pt_collector_end_interval(struct pt_collector *c, double now);

#endif
