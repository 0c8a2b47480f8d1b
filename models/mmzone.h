/*
 * mmzone — the two variants of the zonelist iterator (commit 682a3385,
 * "mm, page_alloc: inline the fast path of the zonelist iterator"), see
 * models/mmzone.c.  Included by models/page_alloc.h.
 */
#ifndef NUMASIM_MMZONE_H
#define NUMASIM_MMZONE_H

enum mmzone_iter {
	MMZONE_ITER_PRE,   /* "pre-682a3385": out-of-line next_zones_zonelist always */
	MMZONE_ITER_POST,  /* "682a3385": inline fast path, __next_zones_zonelist otherwise */
};
const char *mmzone_iter_name(enum mmzone_iter v);
int mmzone_iter_parse(const char *s);   /* -1 if unknown */

#endif
