#ifndef REORDER_CHIREDIS_SHIM_H
#define REORDER_CHIREDIS_SHIM_H
// hiredis 0.14 (Debian libhiredis-dev): the blocking Redis client of ReorderRedis, its only user.
// Swift imports every declaration ReorderRedis needs (the REDIS_* constants are plain integer
// macros), so there is nothing to wrap.
#include <hiredis.h>

#endif
