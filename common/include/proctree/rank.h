/* rank: the resource a breakdown's limited slots are ranked by (--by-rank,
 * BreakDownRank). accounting/rank.h, which includes it, does the ranking
 * and says how. */
#ifndef PROCTREE_RANK_H
#define PROCTREE_RANK_H

enum pt_rank_by { PT_RANK_SEEN, PT_RANK_CPU, PT_RANK_MEMORY, PT_RANK_IO };
#endif
