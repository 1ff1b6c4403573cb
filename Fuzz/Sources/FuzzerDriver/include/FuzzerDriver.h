#ifndef FUZZER_DRIVER_H
#define FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for a program that has its own `main` (libclang_rt.fuzzer defines it).
/// SwiftPM links an executable with `--defsym main=<Module>_main`, a symbol a `-parse-as-library`
/// target does not emit; each fuzz target defines `<Module>_main` and hands over to libFuzzer here.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
