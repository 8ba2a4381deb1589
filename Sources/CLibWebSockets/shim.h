#ifndef REORDER_CLIBWEBSOCKETS_SHIM_H
#define REORDER_CLIBWEBSOCKETS_SHIM_H
#include <libwebsockets.h>
#include <malloc.h>
#include <stdlib.h>
#include <ev.h>

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

/// The server's event loop: libev (epoll on Linux), the event library lws 4.1.6 was built with
/// (Debian's libwebsockets-dev depends on libev-dev and lws' libev plugin). The loop is ours
/// ("foreign" to lws): we run it, so a prepare watcher can end each pass (ev.h's watcher set-up is
/// macros, which Swift cannot call).
static inline struct ev_loop *reorder_ev_loop_new(void) { return ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK); }

/// Runs the loop until `reorder_ev_break`.
static inline void reorder_ev_run(struct ev_loop *loop) { ev_run(loop, 0); }

/// Makes `reorder_ev_run` return after the callbacks of this iteration.
static inline void reorder_ev_break(struct ev_loop *loop) { ev_break(loop, EVBREAK_ALL); }

static inline void reorder_ev_loop_destroy(struct ev_loop *loop) { ev_loop_destroy(loop); }

/// Whether the loop waits in epoll (else libev fell back to poll or select).
static inline int reorder_ev_uses_epoll(struct ev_loop *loop) { return ev_backend(loop) == EVBACKEND_EPOLL; }

/// A prepare watcher: `pass(data)` runs once per loop iteration, after every callback of the
/// iteration before and before the loop waits again, i.e. at the end of each pass.
struct reorder_ev_pass {
  ev_prepare watcher;
  void (*pass)(void *data);
  void *data;
};

static inline void reorder_ev_pass_fire(struct ev_loop *loop, ev_prepare *watcher, int revents) {
  (void)loop;
  (void)revents;
  struct reorder_ev_pass *hook = (struct reorder_ev_pass *)watcher;
  hook->pass(hook->data);
}

static inline struct reorder_ev_pass *reorder_ev_pass_start(struct ev_loop *loop, void (*pass)(void *), void *data) {
  struct reorder_ev_pass *hook = calloc(1, sizeof(*hook));
  if (!hook) return NULL;
  hook->pass = pass;
  hook->data = data;
  ev_prepare_init(&hook->watcher, reorder_ev_pass_fire);
  ev_prepare_start(loop, &hook->watcher);
  return hook;
}

static inline void reorder_ev_pass_stop(struct ev_loop *loop, struct reorder_ev_pass *hook) {
  ev_prepare_stop(loop, &hook->watcher);
  free(hook);
}

/// A one-shot libev timer that calls `fire(data)`. The server's own timers use these on libev,
/// not `lws_sul`: lws 4.1.6 re-arms its one libev timer for a newly scheduled sul with
/// `ev_timer_set` on the active watcher, which libev ignores, so a sul due before lws' next one
/// (often a second away) fired late.
struct reorder_ev_timer {
  ev_timer watcher;
  void (*fire)(void *data);
  void *data;
};

static inline void reorder_ev_timer_fire(struct ev_loop *loop, ev_timer *watcher, int revents) {
  (void)loop;
  (void)revents;
  struct reorder_ev_timer *timer = (struct reorder_ev_timer *)watcher;
  timer->fire(timer->data);
}

static inline struct reorder_ev_timer *reorder_ev_timer_new(void (*fire)(void *), void *data) {
  struct reorder_ev_timer *timer = calloc(1, sizeof(*timer));
  if (!timer) return NULL;
  timer->fire = fire;
  timer->data = data;
  ev_init(&timer->watcher, reorder_ev_timer_fire);
  return timer;
}

/// (Re)arms the timer to fire once, `seconds` from now (the loop's clock brought up to date first:
/// it is otherwise the time the current pass started).
static inline void reorder_ev_timer_arm(struct ev_loop *loop, struct reorder_ev_timer *timer, double seconds) {
  ev_timer_stop(loop, &timer->watcher);
  ev_now_update(loop);
  ev_timer_set(&timer->watcher, seconds, 0.);
  ev_timer_start(loop, &timer->watcher);
}

/// Arms the timer to fire every `seconds`, the first time `seconds` from now.
static inline void reorder_ev_timer_every(struct ev_loop *loop, struct reorder_ev_timer *timer, double seconds) {
  ev_timer_stop(loop, &timer->watcher);
  ev_timer_set(&timer->watcher, seconds, seconds);
  ev_timer_start(loop, &timer->watcher);
}

static inline void reorder_ev_timer_cancel(struct ev_loop *loop, struct reorder_ev_timer *timer) {
  ev_timer_stop(loop, &timer->watcher);
}

#endif
