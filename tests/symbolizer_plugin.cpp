// A module the symbolizer test loads after its symbolizer has read the process's module map: a
// static function (symbol table only) with DWARF lines, called through an exported entry point.
#include <execinfo.h>

static __attribute__((noinline)) int pluginInner(void** pcs, int n) {
    const int r = backtrace(pcs, n); // PLUGIN-LINE
    asm volatile("" ::: "memory");
    return r;
}

extern "C" __attribute__((visibility("default"))) int pluginEntry(void** pcs, int n) {
    const int r = pluginInner(pcs, n);
    asm volatile("" ::: "memory");
    return r;
}
