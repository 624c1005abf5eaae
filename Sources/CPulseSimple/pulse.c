#include "CPulseSimple.h"

#include "CLinux.h"

// The headers do not name the soname; 0 has been libpulse-simple's from the start. pa_strerror
// and pa_get_library_version are libpulse's, found through libpulse-simple's own dependency.
static const char *const sonames[] = {"libpulse-simple.so.0"};

static const char *const symbols[] = {
#define RIFFLE_PULSE_NAME(name) #name,
    RIFFLE_PULSE_FUNCTIONS(RIFFLE_PULSE_NAME)
#undef RIFFLE_PULSE_NAME
};

static RiffleLazyLibraries libraries = {
    .sonames = sonames,
    .count = 1,
    .symbols = symbols,
    .symbol_count = sizeof symbols / sizeof *symbols,
    .lock = PTHREAD_MUTEX_INITIALIZER,
};
static RifflePulse functions;

const RifflePulse *riffle_pulse(void) { return riffle_lazy_load(&libraries, &functions); }

const char *riffle_pulse_error(void) { return riffle_lazy_error(&libraries, &functions); }

const char *riffle_pulse_soname(void) { return sonames[0]; }

int riffle_pulse_probe(const char *directory, char *error, size_t size) {
  return riffle_lazy_probe(&libraries, directory, error, size);
}
