#ifndef RIFFLE_CSYSTEMD_H
#define RIFFLE_CSYSTEMD_H
// sd-bus from libsystemd: the D-Bus session bus for MPRIS and desktop notifications. Loaded
// when a bus is first opened (on the bus thread, or by `riffle doctor`) rather than at start:
// linked, it and its compression and crypto libraries were opened and relocated at every
// start, before the first frame, and with no session bus it is never needed. Compiled against
// the headers; the functions come from `riffle_systemd()`, each typed from the header's own
// declaration.
#include "CLinux.h"
#include <systemd/sd-bus.h>

/// The sd-bus functions Riffle uses.
#define RIFFLE_SYSTEMD_FUNCTIONS(X) \
  X(sd_bus_open_user)               \
  X(sd_bus_new)                     \
  X(sd_bus_set_address)             \
  X(sd_bus_set_bus_client)          \
  X(sd_bus_start)                   \
  X(sd_bus_unref)                   \
  X(sd_bus_flush_close_unref)       \
  X(sd_bus_request_name)            \
  X(sd_bus_add_object)              \
  X(sd_bus_process)                 \
  X(sd_bus_get_events)              \
  X(sd_bus_get_fd)                  \
  X(sd_bus_get_timeout)             \
  X(sd_bus_set_method_call_timeout) \
  X(sd_bus_send)                    \
  X(sd_bus_call)                    \
  X(sd_bus_call_async)              \
  X(sd_bus_message_new_signal)      \
  X(sd_bus_message_new_method_call) \
  X(sd_bus_message_new_method_return)\
  X(sd_bus_message_unref)           \
  X(sd_bus_message_is_method_error) \
  X(sd_bus_message_get_interface)   \
  X(sd_bus_message_get_member)      \
  X(sd_bus_message_peek_type)       \
  X(sd_bus_message_read_basic)      \
  X(sd_bus_message_append_basic)    \
  X(sd_bus_message_open_container)  \
  X(sd_bus_message_close_container) \
  X(sd_bus_message_enter_container) \
  X(sd_bus_message_exit_container)  \
  X(sd_bus_reply_method_return)     \
  X(sd_bus_reply_method_error)      \
  X(sd_bus_error_set)               \
  X(sd_bus_error_free)

typedef struct RiffleSystemd {
  RIFFLE_SYSTEMD_FUNCTIONS(RIFFLE_LAZY_FIELD)
} RiffleSystemd;

/// The functions, loading libsystemd on the first call (thread-safe, once per process). NULL
/// when it cannot be loaded; `riffle_systemd_error()` says why.
const RiffleSystemd *_Nullable riffle_systemd(void);

/// Why loading failed (the loader's own words), or NULL when it did not fail.
const char *_Nullable riffle_systemd_error(void);

// sd_bus_reply_method_return is variadic, which Swift cannot call: an empty reply.
static inline int riffle_sd_bus_reply_empty(const RiffleSystemd *_Nonnull sd,
                                            sd_bus_message *_Nonnull call) {
  return sd->sd_bus_reply_method_return(call, NULL);
}
#endif
