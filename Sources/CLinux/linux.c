#define _GNU_SOURCE
#include "CLinux.h"

#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
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

// Opens the libraries and resolves every symbol into `table`; on failure nothing stays open.
static int open_all(const RiffleLazyLibraries *libraries, const char *directory, void **handles,
                    void *table, char *error, size_t size) {
  for (int i = 0; i < libraries->count; i++) handles[i] = NULL;
  for (int i = 0; i < libraries->count; i++) {
    char path[4096];
    if (directory) {
      snprintf(path, sizeof path, "%s/%s", directory, libraries->sonames[i]);
    } else {
      snprintf(path, sizeof path, "%s", libraries->sonames[i]);
    }
    handles[i] = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handles[i]) {
      const char *why = dlerror();
      snprintf(error, size, "%s", why ? why : libraries->sonames[i]);
      goto fail;
    }
  }
  for (int s = 0; s < libraries->symbol_count; s++) {
    void *symbol = NULL;
    for (int i = libraries->count - 1; i >= 0 && !symbol; i--) {
      symbol = dlsym(handles[i], libraries->symbols[s]);
    }
    if (!symbol) {
      snprintf(error, size, "%s has no %s", libraries->sonames[libraries->count - 1],
               libraries->symbols[s]);
      goto fail;
    }
    // The table is a struct of function pointers only, in the order of `symbols`.
    memcpy((char *)table + s * sizeof(void *), &symbol, sizeof symbol);
  }
  if (libraries->check && libraries->check(table, error, size) != 0) goto fail;
  return 0;
fail:
  for (int i = libraries->count - 1; i >= 0; i--) {
    if (handles[i]) dlclose(handles[i]);
  }
  return -1;
}

const void *riffle_lazy_load(RiffleLazyLibraries *libraries, void *table) {
  pthread_mutex_lock(&libraries->lock);
  if (!libraries->tried) {
    libraries->tried = 1;
    void *handles[libraries->count];
    char *error = libraries->failure;
    size_t size = sizeof libraries->failure;
    // Loaded for good: the handles are never closed.
    if (open_all(libraries, NULL, handles, table, error, size) == 0 &&
        (!libraries->start || libraries->start(table, error, size) == 0)) {
      libraries->loaded = 1;
    }
  }
  int loaded = libraries->loaded;
  pthread_mutex_unlock(&libraries->lock);
  return loaded ? table : NULL;
}

const char *riffle_lazy_error(RiffleLazyLibraries *libraries, void *table) {
  return riffle_lazy_load(libraries, table) ? NULL : libraries->failure;
}

int riffle_lazy_probe(const RiffleLazyLibraries *libraries, const char *directory, char *error,
                      size_t size) {
  void *handles[libraries->count];
  void *table[libraries->symbol_count];
  if (open_all(libraries, directory, handles, table, error, size) != 0) return -1;
  for (int i = libraries->count - 1; i >= 0; i--) dlclose(handles[i]);
  return 0;
}
