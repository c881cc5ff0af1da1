/* The functions are static inline in include/CRender.h (inlined into Swift's loops); SwiftPM
 * wants a C target to have a source file. */
#include "CRender.h"
