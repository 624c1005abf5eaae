// Preloaded into riffle by the valgrind leak check (scripts/leak-check-playback.sh valgrind),
// never part of the player.
//
// Why: valgrind 3.19's wrapper for rt_sigsuspend removes its own signal (VG_SIGVGKILL) from
// the mask in the caller's memory before the call. libdispatch's `_dispatch_sigsuspend` (the
// loop the main thread ends in after `dispatchMain()`) passes a `static const sigset_t`, which
// lives in a read-only page, so valgrind faults on its own write (SEGV_ACCERR at the address of
// `_dispatch_sigsuspend.mask`) and aborts with "the 'impossible' happened". libdispatch calls
// sigsuspend through the PLT, so this definition comes first: it hands glibc's sigsuspend a
// writable copy of the same mask. Nothing else changes: same mask, same call, same result.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>

int sigsuspend(const sigset_t *mask) {
  static int (*next)(const sigset_t *);
  if (next == NULL) {
    next = (int (*)(const sigset_t *))dlsym(RTLD_NEXT, "sigsuspend");
  }
  sigset_t copy = *mask;
  return next(&copy);
}
