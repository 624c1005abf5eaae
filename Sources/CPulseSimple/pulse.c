#include "CPulseSimple.h"

// The headers do not name the soname; 0 has been libpulse-simple's from the start. pa_strerror
// and pa_get_library_version are libpulse's, found through libpulse-simple's own dependency.
static const char *const sonames[] = {"libpulse-simple.so.0"};

RIFFLE_LAZY_LIBRARY(riffle_pulse, RifflePulse, RIFFLE_PULSE_FUNCTIONS, NULL, NULL)
