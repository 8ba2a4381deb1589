#ifndef REORDER_CLIBWEBSOCKETS_SHIM_H
#define REORDER_CLIBWEBSOCKETS_SHIM_H
#include <libwebsockets.h>
#include <malloc.h>

/// LWS_PRE is a macro expression Swift cannot import: the headroom lws_write needs before the payload.
static inline size_t reorder_lws_pre(void) { return LWS_PRE; }

/// LWS_WRITE_NO_FIN is an enum flag Swift imports only as a distinct enum value; OR it in C.
static inline enum lws_write_protocol reorder_lws_write_flags(int initial, int is_start, int is_end) {
  return (enum lws_write_protocol)lws_write_ws_flags(initial, is_start, is_end);
}

/// _lws_log is variadic (Swift cannot call it): logs one preformatted line through lws.
static inline void reorder_lws_log(int level, const char *line) { _lws_log(level, "%s", line); }

/// glibc's malloc_trim(0) (not in Swift's Glibc module): gives freed heap pages back to the system.
static inline int reorder_malloc_trim(void) { return malloc_trim(0); }

#endif
