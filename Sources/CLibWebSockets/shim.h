#ifndef REORDER_CLIBWEBSOCKETS_SHIM_H
#define REORDER_CLIBWEBSOCKETS_SHIM_H
#include <libwebsockets.h>

/// LWS_PRE is a macro expression Swift cannot import: the headroom lws_write needs before the payload.
static inline size_t reorder_lws_pre(void) { return LWS_PRE; }

#endif
