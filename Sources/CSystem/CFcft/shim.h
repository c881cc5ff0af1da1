#pragma once
#include <fcft/fcft.h>
// malloc_trim: fonts are freed in bulk (see FontCache.returnFreedMemory); glibc's module map
// for Swift leaves malloc.h out.
#include <malloc.h>
