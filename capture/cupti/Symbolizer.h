#pragma once
// Return address -> function, source line and module, for the CUPTI agent's writer thread (never in
// the CUDA call). With elfutils' libdwfl (built in when libdw is found): the full symbol table, so
// static and non-exported functions are named, DWARF file:line where the binary has debug info, and
// each module's build id. Without it: the dynamic symbol table (dladdr), exported functions only.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vs::cupti {

struct NativeFrame {
    std::string function; // demangled; "??" when unknown
    std::string module;   // path of the shared object or executable
    uint64_t offset = 0;  // pc - module base
    uint64_t base = 0;    // the module's load address
    std::string file;     // source file from DWARF; empty without debug info
    int line = 0;
    std::string buildId; // hex; empty when the module has none (or without libdw)
};

class Symbolizer {
  public:
    Symbolizer();
    ~Symbolizer();
    Symbolizer(const Symbolizer&) = delete;
    Symbolizer& operator=(const Symbolizer&) = delete;
    // Innermost first: the functions inlined at pc (each at the line of its callee's call), then the
    // function the code belongs to. Not thread-safe: one symbolizer per thread.
    std::vector<NativeFrame> resolveAll(void* pc);
    NativeFrame resolve(void* pc); // the last of resolveAll
    static bool hasDebugInfoSupport();

  private:
    struct Dwarf;
    std::unique_ptr<Dwarf> dwarf_; // null without libdw
};

// "keep_async.constprop.0" -> "keep_async", "f(int) [clone .isra.0]" -> "f(int)".
std::string withoutCloneSuffixes(std::string name);

// One-off lookup (tests, diagnostics): a process-wide symbolizer behind a lock.
NativeFrame symbolize(void* pc);

} // namespace vs::cupti
