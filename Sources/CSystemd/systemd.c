#include "CSystemd.h"

#include "CLinux.h"

// The headers do not name the soname; 0 has been libsystemd's from the start.
static const char *const sonames[] = {"libsystemd.so.0"};

static const char *const symbols[] = {
#define RIFFLE_SYSTEMD_NAME(name) #name,
    RIFFLE_SYSTEMD_FUNCTIONS(RIFFLE_SYSTEMD_NAME)
#undef RIFFLE_SYSTEMD_NAME
};

static RiffleLazyLibraries libraries = {
    .sonames = sonames,
    .count = 1,
    .symbols = symbols,
    .symbol_count = sizeof symbols / sizeof *symbols,
    .lock = PTHREAD_MUTEX_INITIALIZER,
};
static RiffleSystemd functions;

const RiffleSystemd *riffle_systemd(void) { return riffle_lazy_load(&libraries, &functions); }

const char *riffle_systemd_error(void) { return riffle_lazy_error(&libraries, &functions); }

const char *riffle_systemd_soname(void) { return sonames[0]; }
