#include "CCurl.h"

#include <stdio.h>

#include "CLinux.h"

// curl's headers do not name the soname; 4 has been libcurl's since 2006.
static const char *const sonames[] = {"libcurl.so.4"};

static const char *const symbols[] = {
#define RIFFLE_CURL_NAME(name) #name,
    RIFFLE_CURL_FUNCTIONS(RIFFLE_CURL_NAME)
#undef RIFFLE_CURL_NAME
};

static int start(const void *table, char *error, size_t size) {
  const RiffleCurl *curl = table;
  CURLcode code = curl->curl_global_init(CURL_GLOBAL_DEFAULT);
  if (code == CURLE_OK) return 0;
  snprintf(error, size, "libcurl did not start: %s", curl->curl_easy_strerror(code));
  return -1;
}

static RiffleLazyLibraries libraries = {
    .sonames = sonames,
    .count = 1,
    .symbols = symbols,
    .symbol_count = sizeof symbols / sizeof *symbols,
    .start = start,
    .lock = PTHREAD_MUTEX_INITIALIZER,
};
static RiffleCurl functions;

const RiffleCurl *riffle_curl(void) { return riffle_lazy_load(&libraries, &functions); }

const char *riffle_curl_error(void) { return riffle_lazy_error(&libraries, &functions); }

const char *riffle_curl_soname(void) { return sonames[0]; }

int riffle_curl_probe(const char *directory, char *error, size_t size) {
  return riffle_lazy_probe(&libraries, directory, error, size);
}
