#ifndef RIFFLE_CAO_SHIM_H
#define RIFFLE_CAO_SHIM_H
#include <ao/ao.h>
#endif
