#include "CSystemd.h"

// The headers do not name the soname; 0 has been libsystemd's from the start.
static const char *const sonames[] = {"libsystemd.so.0"};

RIFFLE_LAZY_LIBRARY(riffle_systemd, RiffleSystemd, RIFFLE_SYSTEMD_FUNCTIONS, NULL, NULL)
