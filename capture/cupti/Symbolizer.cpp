#include "Symbolizer.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <mutex>
#include <unistd.h>
#include <vector>

#ifdef VRAMSCOPE_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <link.h>
#include <set>
#endif

namespace vs::cupti {
namespace {

std::string demangle(const char* name) {
    int status = 0;
    char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    std::string out = status == 0 && d ? d : name;
    std::free(d);
    return withoutCloneSuffixes(out);
}

// The dynamic symbol table only: what the loader knows.
NativeFrame fromDladdr(void* pc) {
    NativeFrame f;
    Dl_info info{};
    // A return address points after the call: look up pc-1 so the call's own function is named.
    if (!dladdr(static_cast<char*>(pc) - 1, &info)) return f.function = "??", f;
    f.module = info.dli_fname ? info.dli_fname : "";
    f.base = reinterpret_cast<uint64_t>(info.dli_fbase);
    f.offset = reinterpret_cast<uint64_t>(pc) - f.base;
    f.function = info.dli_sname ? demangle(info.dli_sname) : "??";
    return f;
}

} // namespace

// The compiler's clones of a function (constant propagation, split-off parts, cold paths) are the
// function the user wrote: "keep_async.constprop.0" and "f(int) [clone .isra.0]" read as the source.
std::string withoutCloneSuffixes(std::string name) {
    for (size_t at; (at = name.find(" [clone .")) != std::string::npos;) {
        const size_t end = name.find(']', at);
        name.erase(at, end == std::string::npos ? std::string::npos : end + 1 - at);
    }
    for (const char* suffix : {".constprop.", ".isra.", ".part.", ".cold", ".lto_priv.", ".localalias"})
        if (const size_t at = name.find(suffix); at != std::string::npos && at > 0) name.erase(at);
    return name;
}

#ifdef VRAMSCOPE_HAVE_LIBDW
struct Symbolizer::Dwarf {
    Dwfl_Callbacks callbacks{dwfl_linux_proc_find_elf, dwfl_standard_find_debuginfo, nullptr, nullptr};
    Dwfl* dwfl = dwfl_begin(&callbacks);
    std::set<uint64_t> reported; // load biases of the objects already reported

    Dwarf() { report(); }
    ~Dwarf() { dwfl_end(dwfl); }
    // The loaded objects as the dynamic linker lists them, added to those reported before. Not
    // /proc/self/maps (dwfl_linux_proc_report): libelf maps the files it reads into this very
    // process, and a second reading of the maps takes those mappings for parts of the modules.
    void report() {
        if (!dwfl) return;
        dwfl_report_begin_add(dwfl);
        dl_iterate_phdr(
            [](dl_phdr_info* info, size_t, void* self) {
                static_cast<Dwarf*>(self)->reportObject(info);
                return 0;
            },
            this);
        dwfl_report_end(dwfl, nullptr, nullptr);
    }
    void reportObject(const dl_phdr_info* info) {
        std::string path = info->dlpi_name ? info->dlpi_name : "";
        if (path.empty() && reported.empty()) { // the main program comes first, unnamed
            char exe[4096];
            const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
            if (n > 0) path.assign(exe, size_t(n));
        }
        if (path.empty() || path.front() != '/' || !reported.insert(info->dlpi_addr).second) return; // vdso
        dwfl_report_elf(dwfl, path.c_str(), path.c_str(), -1, info->dlpi_addr, true);
    }
    Dwfl_Module* module(Dwarf_Addr at) {
        if (!dwfl) return nullptr;
        if (Dwfl_Module* m = dwfl_addrmodule(dwfl, at)) return m;
        report(); // loaded since (dlopen)
        return dwfl_addrmodule(dwfl, at);
    }
    static std::string buildId(Dwfl_Module* m) {
        GElf_Addr bias = 0;
        dwfl_module_getelf(m, &bias); // reads the ELF file, which holds the note
        const unsigned char* bits = nullptr;
        GElf_Addr vaddr = 0;
        const int n = dwfl_module_build_id(m, &bits, &vaddr);
        std::string hex;
        for (int i = 0; i < n; ++i) {
            static const char digits[] = "0123456789abcdef";
            hex += digits[bits[i] >> 4], hex += digits[bits[i] & 15];
        }
        return hex;
    }
    bool resolve(void* pc, std::vector<NativeFrame>& out) {
        const Dwarf_Addr at = reinterpret_cast<Dwarf_Addr>(pc) - 1;
        Dwfl_Module* m = module(at);
        if (!m) return false;
        NativeFrame f;
        Dwarf_Addr start = 0;
        const char* path = dwfl_module_info(m, nullptr, &start, nullptr, nullptr, nullptr, nullptr, nullptr);
        f.module = path ? path : "", f.base = start, f.offset = at + 1 - start;
        f.buildId = buildId(m);
        const char* name = dwfl_module_addrname(m, at);
        f.function = name ? demangle(name) : "??";
        if (Dwfl_Line* l = dwfl_module_getsrc(m, at)) {
            int line = 0;
            if (const char* file = dwfl_lineinfo(l, nullptr, &line, nullptr, nullptr, nullptr))
                f.file = file, f.line = line;
        }
        inlined(m, at, f, out);
        out.push_back(f);
        return true;
    }
    // Functions inlined at `at`, innermost first, each at the line its callee was called from; `f`
    // (the function the code belongs to) ends at the call site of the outermost one.
    static void inlined(Dwfl_Module* m, Dwarf_Addr at, NativeFrame& f, std::vector<NativeFrame>& out) {
        Dwarf_Addr bias = 0;
        Dwarf_Die* cu = dwfl_module_addrdie(m, at, &bias);
        Dwarf_Die* scopes = nullptr;
        const int n = cu ? dwarf_getscopes(cu, at - bias, &scopes) : 0;
        Dwarf_Files* files = nullptr;
        size_t fileCount = 0;
        if (n > 0 && dwarf_getsrcfiles(cu, &files, &fileCount) != 0) files = nullptr;
        for (int i = 0; i < n; ++i) {
            if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine) continue;
            NativeFrame callee = f;
            callee.function = dieName(&scopes[i]);
            out.push_back(callee);
            Dwarf_Attribute a;
            Dwarf_Word file = 0, line = 0;
            const char* callFile = nullptr;
            if (files && dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &file) == 0 &&
                file < fileCount)
                callFile = dwarf_filesrc(files, file, nullptr, nullptr);
            f.file = callFile ? callFile : "";
            f.line = dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &line) == 0 ? int(line) : 0;
        }
        std::free(scopes);
    }
    static std::string dieName(Dwarf_Die* die) {
        Dwarf_Attribute a;
        if (const char* linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a)))
            return demangle(linkage);
        const char* name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
        return name ? name : "??";
    }
};

Symbolizer::Symbolizer() : dwarf_(std::make_unique<Dwarf>()) {}
bool Symbolizer::hasDebugInfoSupport() {
    return true;
}
#else
struct Symbolizer::Dwarf {
    bool resolve(void*, std::vector<NativeFrame>&) { return false; }
};
Symbolizer::Symbolizer() = default;
bool Symbolizer::hasDebugInfoSupport() {
    return false;
}
#endif

Symbolizer::~Symbolizer() = default;

std::vector<NativeFrame> Symbolizer::resolveAll(void* pc) {
    std::vector<NativeFrame> frames;
    if (dwarf_ && dwarf_->resolve(pc, frames) && frames.back().function != "??") return frames;
    // libdwfl could not name it (no symbol table entry): the loader may still know an export.
    NativeFrame d = fromDladdr(pc);
    if (frames.empty()) return {d};
    if (d.function != "??") frames.back().function = d.function;
    return frames;
}

NativeFrame Symbolizer::resolve(void* pc) {
    return resolveAll(pc).back();
}

NativeFrame symbolize(void* pc) {
    static std::mutex mutex;
    static Symbolizer shared;
    std::lock_guard lock(mutex);
    return shared.resolve(pc);
}

} // namespace vs::cupti
