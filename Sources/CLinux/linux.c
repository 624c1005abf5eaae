#define _GNU_SOURCE
#include "CLinux.h"

#include <malloc.h>
#include <pthread.h>
#include <string.h>

void riffle_name_current_thread(const char *name) {
  char shortened[16];
  strncpy(shortened, name, sizeof shortened - 1);
  shortened[sizeof shortened - 1] = '\0';
  pthread_setname_np(pthread_self(), shortened);
}

void riffle_tune_malloc(int arenas, int mmap_threshold) {
  mallopt(M_ARENA_MAX, arenas);
  mallopt(M_MMAP_THRESHOLD, mmap_threshold);
}
