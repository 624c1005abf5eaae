#ifndef RIFFLE_CCURL_SHIM_H
#define RIFFLE_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
// wrapper per argument type.
static inline CURLcode riffle_curl_setopt_long(CURL *h, CURLoption o, long v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode riffle_curl_setopt_string(CURL *h, CURLoption o, const char *v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode riffle_curl_setopt_pointer(CURL *h, CURLoption o, void *v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode riffle_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) {
  return curl_easy_setopt(h, o, v);
}
typedef size_t (*riffle_curl_data_cb)(char *, size_t, size_t, void *);
static inline CURLcode riffle_curl_setopt_data_cb(CURL *h, CURLoption o, riffle_curl_data_cb cb) {
  return curl_easy_setopt(h, o, cb);
}
typedef int (*riffle_curl_xferinfo_cb)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t);
static inline CURLcode riffle_curl_setopt_xferinfo_cb(CURL *h, riffle_curl_xferinfo_cb cb) {
  return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb);
}
static inline CURLcode riffle_curl_getinfo_long(CURL *h, CURLINFO i, long *v) {
  return curl_easy_getinfo(h, i, v);
}
static inline CURLcode riffle_curl_getinfo_string(CURL *h, CURLINFO i, char **v) {
  return curl_easy_getinfo(h, i, v);
}
static inline CURLcode riffle_curl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) {
  return curl_easy_getinfo(h, i, v);
}
// CURLVERSION_NOW is a macro naming an enum value, which Swift does not import.
static inline curl_version_info_data *riffle_curl_version_info(void) {
  return curl_version_info(CURLVERSION_NOW);
}
#endif
