#include "CCurl.h"

#include <stdio.h>

// curl's headers do not name the soname; 4 has been libcurl's since 2006.
static const char *const sonames[] = {"libcurl.so.4"};

const char *riffle_curl_soname(void) { return sonames[0]; }

static int start(const void *table, char *error, size_t size) {
  const RiffleCurl *curl = table;
  CURLcode code = curl->curl_global_init(CURL_GLOBAL_DEFAULT);
  if (code == CURLE_OK) return 0;
  snprintf(error, size, "libcurl did not start: %s", curl->curl_easy_strerror(code));
  return -1;
}

RIFFLE_LAZY_LIBRARY(riffle_curl, RiffleCurl, RIFFLE_CURL_FUNCTIONS, NULL, start)
RIFFLE_LAZY_PROBE(riffle_curl)
