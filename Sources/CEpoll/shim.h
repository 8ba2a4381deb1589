// Linux's event interfaces, which Swift's Glibc module leaves out: epoll(7) for waiting on many
// sockets at once, eventfd(2) for waking the waiting thread. Part of glibc: nothing to link.
#include <sys/epoll.h>
#include <sys/eventfd.h>
