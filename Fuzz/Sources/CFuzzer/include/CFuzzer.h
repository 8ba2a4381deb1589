#ifndef REORDER_CFUZZER_H
#define REORDER_CFUZZER_H
#include <stddef.h>
#include <stdint.h>

// libFuzzer's entry for a program with its own main (compiler-rt FuzzerInterface.h): SwiftPM
// renames an executable's main, so each target's main.swift calls this instead of relying on
// libFuzzer's main.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
