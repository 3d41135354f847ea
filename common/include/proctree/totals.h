/* totals: how a DELTA metric is reported, the interval's amount or a
 * running total (--counters, CounterMode). report/totals.h, which includes
 * it, keeps the totals themselves and says why. */
#ifndef PROCTREE_TOTALS_H
#define PROCTREE_TOTALS_H

/* How a DELTA metric is reported: the interval's amount, or the total. */
enum pt_counters { PT_COUNTERS_DELTA, PT_COUNTERS_TOTAL };

#endif
