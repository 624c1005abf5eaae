#ifndef RIFFLE_CCURL_H
#define RIFFLE_CCURL_H
// libcurl, loaded when the first transfer starts rather than at start.
//
// Debian's libcurl brings some 30 libraries with it (OpenSSL, GnuTLS, Kerberos, LDAP, SSH,
// RTMP, ...): linked, they took 12 ms of every start and 7 MB of memory before a single byte was
// fetched, and a run that only plays local files never needs them. Riffle compiles against
// curl's headers but does not link it: `riffle_curl()` opens it on first use (on the transfer
// thread) and hands back a table of the functions Riffle calls, each typed from the header's own
// declaration, so the compiler checks every call.
#include "CLinux.h"
#include <curl/curl.h>

/// The curl functions Riffle uses.
#define RIFFLE_CURL_FUNCTIONS(X) \
  X(curl_global_init)            \
  X(curl_version)                \
  X(curl_version_info)           \
  X(curl_easy_init)              \
  X(curl_easy_cleanup)           \
  X(curl_easy_setopt)            \
  X(curl_easy_getinfo)           \
  X(curl_easy_strerror)          \
  X(curl_slist_append)           \
  X(curl_slist_free_all)         \
  X(curl_multi_init)             \
  X(curl_multi_add_handle)       \
  X(curl_multi_remove_handle)    \
  X(curl_multi_perform)          \
  X(curl_multi_info_read)        \
  X(curl_multi_timeout)          \
  X(curl_multi_poll)             \
  X(curl_multi_wakeup)

/// The functions, resolved from the loaded library (the variadic two are called through the
/// typed wrappers below: Swift cannot call a variadic function).
typedef struct RiffleCurl {
  RIFFLE_CURL_FUNCTIONS(RIFFLE_LAZY_FIELD)
} RiffleCurl;

/// The functions, loading libcurl and running `curl_global_init` on the first call
/// (thread-safe, once per process). NULL when it cannot be loaded; `riffle_curl_error()` says
/// why.
const RiffleCurl *_Nullable riffle_curl(void);

/// Why loading failed (the loader's own words), or NULL when it did not fail.
const char *_Nullable riffle_curl_error(void);

/// The soname opened, e.g. "libcurl.so.4".
const char *_Nonnull riffle_curl_soname(void);

/// Tries to load libcurl from `directory` (NULL: the loader's usual search) without touching the
/// table above: 0 when it loads and has every function, else -1 with the reason in `error`.
int riffle_curl_probe(const char *_Nullable directory, char *_Nonnull error, size_t size);

// curl_easy_setopt and curl_easy_getinfo are variadic: one typed wrapper per argument type.
static inline CURLcode riffle_curl_setopt_long(const RiffleCurl *_Nonnull c, CURL *_Nonnull h,
                                               CURLoption o, long v) {
  return c->curl_easy_setopt(h, o, v);
}
static inline CURLcode riffle_curl_setopt_string(const RiffleCurl *_Nonnull c, CURL *_Nonnull h,
                                                 CURLoption o, const char *_Nullable v) {
  return c->curl_easy_setopt(h, o, v);
}
static inline CURLcode riffle_curl_setopt_pointer(const RiffleCurl *_Nonnull c,
                                                  CURL *_Nonnull h, CURLoption o,
                                                  void *_Nullable v) {
  return c->curl_easy_setopt(h, o, v);
}
static inline CURLcode riffle_curl_setopt_off(const RiffleCurl *_Nonnull c, CURL *_Nonnull h,
                                              CURLoption o, curl_off_t v) {
  return c->curl_easy_setopt(h, o, v);
}
typedef size_t (*riffle_curl_data_cb)(char *_Nullable, size_t, size_t, void *_Nullable);
static inline CURLcode riffle_curl_setopt_data_cb(const RiffleCurl *_Nonnull c,
                                                  CURL *_Nonnull h, CURLoption o,
                                                  riffle_curl_data_cb _Nonnull cb) {
  return c->curl_easy_setopt(h, o, cb);
}
typedef int (*riffle_curl_xferinfo_cb)(void *_Nullable, curl_off_t, curl_off_t, curl_off_t,
                                       curl_off_t);
static inline CURLcode riffle_curl_setopt_xferinfo_cb(const RiffleCurl *_Nonnull c,
                                                      CURL *_Nonnull h,
                                                      riffle_curl_xferinfo_cb _Nonnull cb) {
  return c->curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb);
}
static inline CURLcode riffle_curl_getinfo_long(const RiffleCurl *_Nonnull c, CURL *_Nonnull h,
                                                CURLINFO i, long *_Nonnull v) {
  return c->curl_easy_getinfo(h, i, v);
}
static inline CURLcode riffle_curl_getinfo_string(const RiffleCurl *_Nonnull c,
                                                  CURL *_Nonnull h, CURLINFO i,
                                                  char *_Nullable *_Nonnull v) {
  return c->curl_easy_getinfo(h, i, v);
}
static inline CURLcode riffle_curl_getinfo_off(const RiffleCurl *_Nonnull c, CURL *_Nonnull h,
                                               CURLINFO i, curl_off_t *_Nonnull v) {
  return c->curl_easy_getinfo(h, i, v);
}
// CURLVERSION_NOW is a macro naming an enum value, which Swift does not import.
static inline curl_version_info_data *_Nullable riffle_curl_version_info(
    const RiffleCurl *_Nonnull c) {
  return c->curl_version_info(CURLVERSION_NOW);
}
#endif
