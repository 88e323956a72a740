// vramscope's native allocator tracker, compiled on first use against the installed torch
// (torch.utils.cpp_extension.load). The allocator calls on_trace() for every event while holding
// its own lock: it copies the plain fields and a reference to the recorded stack into a bounded
// buffer and returns - no GIL, no allocation beyond the buffer's, no I/O. drain(), called from the
// recorder's writer thread, symbolizes the stacks (_own_symbols.h; the GIL only for Python frames),
// interns strings/frames/stacks/streams and encodes .vscap records (docs/vscap.md) with core's codec;
// with Python stacks the stacks themselves are gathered by OwnStacks (_own_stacks.h), not by PyTorch;
// _codec.cpp, compiled with it, adds the functions that encode every other record from Python.
#include <torch/extension.h>

#include <c10/cuda/CUDACachingAllocator.h>
#include <torch/csrc/profiler/combined_traceback.h>

#include "_allocator_state.h"
#include "_codec.h" // the interner and core's codec
#include "_heap_index.h"
#include "_own_stacks.h"
#include "_own_symbols.h"
#include "_stack_cache.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <vector>
#ifdef VRAMSCOPE_ZSTD
#include <zstd.h>
#endif

namespace {

using c10::CachingDeviceAllocator::TraceEntry;
using vramscope_tracker::framesMember;
using vramscope_tracker::PyFrames;

struct Event {
    int64_t timeUs;
    uint64_t addr, size, stream;
    std::shared_ptr<c10::GatheredContext> context; // its stack, symbolized by drain(), unless
    uint32_t own;                                  // 1 + the number of its stack in OwnStacks' cache
    uint8_t action;
    int8_t device;
};

// The stacks of events gathered by OwnStacks (_own_stacks.h) rather than by PyTorch. Never destroyed:
// the allocator may ask for a context while the process exits.
vramscope_tracker::OwnStacks* ownStacks = new vramscope_tracker::OwnStacks;
std::vector<uint64_t> ownStackIds; // OwnStacks' number -> the file's stack id (0: not yet); interner's mutex

std::mutex bufferMutex;
std::vector<Event> buffer; // guarded by bufferMutex
size_t capacity = 1 << 20;
std::atomic<bool> enabled{false};
std::atomic<uint64_t> dropped{0};
bool attached = false;

int64_t nowUs() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Raw Python stacks -> stack ids, so that each distinct stack is symbolized once (drain()). Only for
// Python-only stacks (stacks="python"): with C++ frames a stack is more than its Python frames. The
// cache's code objects hold a reference each (taken in drain(), with the GIL).
bool cacheStacks = false;
vramscope_tracker::StackCache stackCache; // guarded by the interner's mutex: only drain() and reset() use it
std::vector<PyObject*> cachedCode;        // the references the cache holds

auto rawFrames(const PyFrames& frames) {
    return [&frames](size_t i) { return vramscope_tracker::RawFrame{frames[i].code, frames[i].lasti}; };
}

// Called by the allocator for every event, holding its lock, on the allocating thread: no GIL, no
// I/O. It copies the plain fields and a reference to the context into a bounded buffer; drain()
// resolves the stacks. (Resolving a cached stack here instead, so that no context is kept, was
// measured on the H200 on 2026-12-03 with overhead_inproc.py: +1.3 µs per event on the `pair`
// workload against +0.9 for this hook and the drain together; taken out until a clean A/B.)
void onTrace(const TraceEntry& te) {
    if (!enabled.load(std::memory_order_relaxed)) return;
    const int64_t t = nowUs();
    std::lock_guard<std::mutex> lock(bufferMutex);
    if (buffer.size() >= capacity) {
        dropped.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    // A stack of OwnStacks' cache is kept by its number: no reference count shared with the writer
    const c10::GatheredContext* context = te.context_.get();
    const auto* own = context && typeid(*context) == typeid(vramscope_tracker::OwnTraceback)
                          ? static_cast<const vramscope_tracker::OwnTraceback*>(context)
                          : nullptr;
    const bool numbered = own && own->index != vramscope_tracker::OwnTraceback::uncached;
    buffer.push_back(Event{t, te.addr_, te.size_, reinterpret_cast<uint64_t>(te.stream_),
                           numbered ? nullptr : te.context_, numbered ? own->index + 1 : 0,
                           static_cast<uint8_t>(te.action_), static_cast<int8_t>(te.device_)});
}

// Adds the symbolized stacks to the hook's cache, each code object of a new entry kept alive so
// that its address cannot be reused by other code. The events' contexts hold the code objects until
// drain() returns, so the references can be taken after the entries are in.
void remember(const std::vector<torch::CapturedTraceback*>& tbs, const std::vector<size_t>& owner,
              const std::vector<uint64_t>& ids, const std::vector<bool>& own) {
    std::vector<size_t> fresh;
    for (size_t k = 0; k < tbs.size(); ++k) {
        // OwnStacks' stacks are known by their number (ownStackIds); stacks with TorchScript or C++
        // frames are not keyed by their Python frames alone
        if (own[k] || !vramscope_tracker::pythonOnly(tbs[k])) continue;
        const PyFrames& frames = tbs[k]->*framesMember();
        const auto at = rawFrames(frames);
        if (stackCache.add(stackCache.hash(frames.size(), at), frames.size(), at, ids[owner[k]]))
            fresh.push_back(k);
    }
    py::gil_scoped_acquire gil;
    for (size_t k : fresh)
        for (const auto& f : tbs[k]->*framesMember()) {
            Py_INCREF(reinterpret_cast<PyObject*>(f.code));
            cachedCode.push_back(reinterpret_cast<PyObject*>(f.code));
        }
}

// The stack ids of the events (called holding the interner's mutex). Symbolizing takes the GIL
// (about 1 µs per event, stolen from the program's threads), so each distinct raw stack is
// symbolized once and cached; Python-only stacks are symbolized by vramscope (_own_symbols.h).
std::vector<uint64_t> stackIds(const std::vector<Event>& events) {
    std::vector<uint64_t> ids(events.size(), 0);
    std::vector<torch::CapturedTraceback*> tbs;
    std::vector<size_t> owner;
    vramscope_tracker::StackCache batch;             // raw stack -> index in tbs, within this drain
    std::vector<std::pair<size_t, size_t>> sameAs;   // (event, index in tbs)
    std::unordered_map<uint32_t, size_t> ownBatch;   // OwnStacks' number -> index in tbs, within this drain
    std::vector<std::pair<size_t, uint32_t>> ownNew; // (index in tbs, OwnStacks' number)
    for (size_t i = 0; i < events.size(); ++i) {
        if (const uint32_t k = events[i].own) {
            if (k - 1 < ownStackIds.size() && ownStackIds[k - 1]) {
                ids[i] = ownStackIds[k - 1];
            } else if (const auto it = ownBatch.find(k - 1); it != ownBatch.end()) {
                sameAs.emplace_back(i, it->second);
            } else if (torch::CapturedTraceback* tb = ownStacks->at(k - 1)) {
                ownBatch.emplace(k - 1, tbs.size()), ownNew.emplace_back(tbs.size(), k - 1);
                tbs.push_back(tb), owner.push_back(i);
            }
            continue;
        }
        auto* tb = dynamic_cast<torch::CapturedTraceback*>(events[i].context.get());
        if (!tb) continue;
        // (a stack with TorchScript or C++ frames is more than its Python frames: not cached)
        if (cacheStacks && vramscope_tracker::pythonOnly(tb)) {
            const PyFrames& frames = tb->*framesMember();
            const auto at = rawFrames(frames);
            const uint64_t key = batch.hash(frames.size(), at);
            if (const uint64_t cached = stackCache.find(key, frames.size(), at);
                cached != stackCache.missing) {
                ids[i] = cached;
                continue;
            }
            if (const uint64_t k = batch.find(key, frames.size(), at); k != batch.missing) {
                sameAs.emplace_back(i, k);
                continue;
            }
            batch.add(key, frames.size(), at, tbs.size());
        }
        tbs.push_back(tb), owner.push_back(i);
    }
    if (tbs.empty()) return ids;
    const auto sym = vramscope_tracker::symbolizeStacks(tbs);
    std::vector<uint64_t> frameIds(sym.all_frames.size());
    for (size_t f = 0; f < sym.all_frames.size(); ++f)
        frameIds[f] = vramscope_codec::interner().frame(sym.all_frames[f].filename,
                                                        sym.all_frames[f].funcname, sym.all_frames[f].lineno);
    std::vector<uint64_t> stack;
    for (size_t k = 0; k < tbs.size(); ++k) {
        stack.clear();
        for (uint64_t f : sym.tracebacks[k]) stack.push_back(frameIds[f]);
        ids[owner[k]] = vramscope_codec::interner().stack(stack);
    }
    for (auto [i, k] : sameAs) ids[i] = ids[owner[k]];
    std::vector<bool> own(tbs.size(), false);
    for (auto [k, number] : ownNew) {
        if (ownStackIds.size() <= number) ownStackIds.resize(number + 1, 0);
        ownStackIds[number] = ids[owner[k]], own[k] = true;
    }
    if (cacheStacks) remember(tbs, owner, ids, own);
    return ids;
}

std::shared_ptr<c10::GatheredContext> ownContext() {
    return ownStacks->context();
}

// recordHistory's arguments changed between torch versions (4, 5 then 6; its RecordContext moved
// namespace): they are read off the allocator's own declaration.
template <class F> struct Signature;
template <class C, class R, class... A> struct Signature<R (C::*)(A...)> {
    static constexpr size_t arity = sizeof...(A);
    template <size_t I> using arg = std::tuple_element_t<I, std::tuple<A...>>;
};

template <class Allocator = c10::cuda::CUDACachingAllocator::CUDAAllocator>
bool recordWithContexts(std::shared_ptr<c10::GatheredContext> (*contextOf)(), size_t maxEntries, bool frees) {
    using S = Signature<decltype(&Allocator::recordHistory)>;
    if constexpr (S::arity < 4 || S::arity > 6) {
        return false;
    } else if constexpr (!std::is_enum_v<typename S::template arg<3>>) {
        return false; // torch before 2.1: a bool there
    } else {
        using When = typename S::template arg<3>;
        const When when = frees ? When::ALL : When::ALLOC;
        Allocator* a = c10::cuda::CUDACachingAllocator::get();
        if constexpr (S::arity == 6)
            a->recordHistory(true, contextOf, maxEntries, when, false, std::vector<std::string>{});
        else if constexpr (S::arity == 5)
            a->recordHistory(true, contextOf, maxEntries, when, false);
        else
            a->recordHistory(true, contextOf, maxEntries, when);
        return true;
    }
}

// A measurement only (overhead_inproc.py, mode hist_nocontext): the history asks for a context at
// every event and gets none - what PyTorch's handling of the contexts themselves costs, beside
// what gathering them costs.
std::shared_ptr<c10::GatheredContext> noContext() {
    return nullptr;
}

// Called (with the GIL) right after torch.cuda.memory._record_memory_history(stacks="python") has
// switched the history on: the same history, its Python stacks gathered by OwnStacks. Empty when
// switched, else why not (PyTorch's gather stays).
std::string useOwnStacks(size_t maxEntries, bool frees) {
    std::string why = ownStacks->check();
    if (why.empty() && !recordWithContexts(&ownContext, maxEntries, frees))
        why = "this torch's recordHistory() takes arguments vramscope does not know";
    return why;
}

// Encodes one device's events (in order) as an Events record.
void encodeEvents(std::string& out, int device, const std::vector<const Event*>& evs,
                  const std::vector<uint64_t>& stacks) {
    vramscope_tracker::encodeEvents(out, vramscope_codec::interner(), device, evs.size(), [&](size_t i) {
        const Event& e = *evs[i];
        return vramscope_tracker::EventFields{e.timeUs, e.addr, e.size, e.action, e.stream, stacks[i]};
    });
}

py::bytes drain() {
    std::vector<Event> events;
    {
        std::lock_guard<std::mutex> lock(bufferMutex);
        events.swap(buffer);
        buffer.reserve(std::min<size_t>(capacity, std::max<size_t>(1024, events.size())));
    }
    std::string out;
    {
        py::gil_scoped_release release; // symbolizing takes the GIL itself, only for Python frames
        std::lock_guard<std::mutex> lock(vramscope_codec::internMutex());
        const auto stacks = stackIds(events);
        std::map<int, std::pair<std::vector<const Event*>, std::vector<uint64_t>>> byDevice;
        for (size_t i = 0; i < events.size(); ++i) {
            auto& d = byDevice[events[i].device];
            d.first.push_back(&events[i]), d.second.push_back(stacks[i]);
        }
        for (auto& [device, d] : byDevice) encodeEvents(out, device, d.first, d.second);
        auto& pending = vramscope_codec::interner().pending;
        out += pending, pending.clear();
    }
    return py::bytes(out); // `events` (and their Python frames) are released here, with the GIL held
}

void start(size_t maxBuffered, bool pythonStacksOnly) {
    {
        std::lock_guard<std::mutex> lock(bufferMutex);
        cacheStacks = pythonStacksOnly;
        capacity = std::max<size_t>(1024, maxBuffered);
        buffer.reserve(std::min<size_t>(capacity, 1 << 16));
    }
    // There is no detach: attach once per process, and gate with `enabled`.
    if (!attached) c10::cuda::CUDACachingAllocator::attachAllocatorTraceTracker(onTrace), attached = true;
    enabled = true;
}

// A new file: ids numbered from the start again (the old file's definitions are not in it), so the
// interner and the stack cache start empty. Called with the GIL, before any record of the file.
void reset() {
    std::vector<PyObject*> code;
    {
        py::gil_scoped_release release;
        std::lock_guard<std::mutex> interning(vramscope_codec::internMutex());
        std::lock_guard<std::mutex> lock(bufferMutex);
        vramscope_codec::interner() = vramscope_tracker::Interner{};
        stackCache.clear();
        ownStackIds.clear();
        buffer.clear();
        code.swap(cachedCode);
    }
    for (PyObject* c : code) Py_DECREF(c);
}

void stop() {
    enabled = false;
}

py::object compress(const std::string& raw, int level) {
#ifdef VRAMSCOPE_ZSTD
    std::string out;
    {
        py::gil_scoped_release release;
        out.resize(ZSTD_compressBound(raw.size()));
        const size_t n = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), level);
        if (ZSTD_isError(n))
            out.clear();
        else
            out.resize(n);
    }
    if (out.empty() && !raw.empty()) return py::none();
    return py::bytes(out);
#else
    (void)raw, (void)level;
    return py::none();
#endif
}

} // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("start", &start, "attach (once) and enable recording; buffer at most N events between drains");
    m.def("stop", &stop);
    m.def("use_own_stacks", &useOwnStacks,
          "gather the history's Python stacks here, not in PyTorch: '' when switched, else why not");
    m.def(
        "own_stacks", [] { return ownStacks->size(); }, "distinct stacks OwnStacks has cached");
    m.def(
        "use_no_contexts",
        [](size_t maxEntries, bool frees) { return recordWithContexts(&noContext, maxEntries, frees); },
        "measurement only: after _record_memory_history, the history gets no context at any event");
    m.def("reset", &reset, "forget every id and buffered event: the next records start a new file");
    m.def("drain", &drain, "encode the buffered events (and new definitions) as .vscap records");
    m.def("allocator_state", &vramscope_tracker::allocatorState, py::arg("stacks"),
          "_snapshot()'s segments and allocator_settings, stacks symbolized by vramscope, no trace ring");
    m.def("dropped", [] { return dropped.load(); });
    m.def("buffered", [] {
        std::lock_guard<std::mutex> lock(bufferMutex);
        return buffer.size();
    });
    if (vramscope_codec::addFunctions(m.ptr()) < 0)
        throw py::error_already_set(); // string, stack, ..._record
    if (vramscope_heap::addFunctions(m.ptr()) < 0)
        throw py::error_already_set(); // heap_types, heap_index: the retention walk's index
    m.def("compress", &compress, "zstd-compress (None when built without zstd)");
    m.def("has_zstd", [] {
#ifdef VRAMSCOPE_ZSTD
        return true;
#else
        return false;
#endif
    });
}
