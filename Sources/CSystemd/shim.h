#ifndef RIFFLE_CSYSTEMD_SHIM_H
#define RIFFLE_CSYSTEMD_SHIM_H
// sd-bus from libsystemd: the D-Bus session bus for MPRIS and desktop notifications.
#include <systemd/sd-bus.h>

// sd_bus_reply_method_return is variadic, which Swift cannot call: an empty reply.
static inline int riffle_sd_bus_reply_empty(sd_bus_message *call) {
  return sd_bus_reply_method_return(call, NULL);
}
#endif
