// Only the declaration in include/CFuzzer.h: libFuzzer itself comes from -sanitize=fuzzer.
#include "CFuzzer.h"
