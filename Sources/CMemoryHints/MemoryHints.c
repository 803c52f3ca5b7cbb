// The target's one source file: SwiftPM builds a C target only from sources, and everything
// here is inline in the header.
#include "CMemoryHints.h"
