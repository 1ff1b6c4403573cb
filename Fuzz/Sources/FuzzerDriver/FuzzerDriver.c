// Only the declaration in include/FuzzerDriver.h matters; libFuzzer itself provides the function.
#include "FuzzerDriver.h"
