#pragma once
// The Python stacks of allocator events, gathered by vramscope instead of by PyTorch (included by
// _tracker.cpp only: it names private members of torch's CapturedTraceback).
//
// Why: with `_record_memory_history(stacks="python")` the allocator asks PyTorch for a stack at every
// allocation and free, and PyTorch takes the GIL (from the autograd threads too, which run no Python
// at all), materialises a frame object for every frame, takes a reference to each code object and
// allocates a new CapturedTraceback each time: ~0.9 µs an event measured on the H200 (docs/recorder.md),
// most of the recorder's cost. Here the calling thread's frames are read without the GIL
// (_py_frames.h), looked up in a cache of the stacks seen so far, and the cached CapturedTraceback is
// handed out again: a shared_ptr copy. Only a stack never seen before takes the GIL (to keep its code
// objects alive) and builds one. The contexts are real CapturedTracebacks with PyTorch's own Python
// unwinder, so torch.cuda.memory._snapshot(), symbolize() and drain() treat them as PyTorch's.
#include <torch/csrc/profiler/combined_traceback.h>

#include "_py_frames.h"
#include "_stack_cache.h"
#include "_traceback_access.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace vramscope_tracker {

// A stack OwnStacks hands out: PyTorch's CapturedTraceback, numbered. The tracker's hook recognises
// it (typeid) and keeps the number instead of a reference: a cached stack lives as long as the
// process, and a reference count touched by the writer thread too made every event's atomics
// cross cores.
struct OwnTraceback final : torch::CapturedTraceback {
    static constexpr uint32_t uncached = UINT32_MAX; // beyond maxStacks: an ordinary, counted context
    uint32_t index = uncached;                       // position in OwnStacks' cache
};

class OwnStacks {
  public:
    static constexpr int maxFrames = 256; // deeper stacks are left to PyTorch
    // Distinct stacks kept (~0.6 KB each at 30 frames, so at most ~80 MB of the program's host
    // memory); a stack first seen beyond that gets a traceback of its own, as from PyTorch.
    static constexpr size_t maxStacks = 1 << 17;

    // Whether this process's stacks can be read here: the frames read now must equal the frames
    // PyTorch gathers now, and PyTorch's Python unwinder must be there. Call with the GIL, from Python.
    // Empty when they can; else why not.
    std::string check() {
        const auto theirs = torch::CapturedTraceback::gather(true, false, false);
        torch::CapturedTraceback::Python* unwinder = theirs.get()->*unwinderMember();
        const PyFrames& frames = theirs.get()->*framesMember();
        RawFrame mine[maxFrames];
        const int n = readPythonFrames(mine, maxFrames);
        if (n < 0) return "this Python's frames cannot be read without the GIL (3.11 to 3.13 can)";
        if (unwinder == nullptr || frames.empty()) return "PyTorch gathered no Python frames to compare with";
        if (static_cast<size_t>(n) != frames.size()) return "the frames read differ from PyTorch's in number";
        for (int i = 0; i < n; ++i)
            if (mine[i].code != frames[i].code || mine[i].lasti != frames[i].lasti)
                return "the frames read differ from PyTorch's";
        unwinder_ = unwinder;
        return {};
    }

    // The context of the calling thread's allocator event (the allocator calls it before it takes its
    // own lock, as it calls PyTorch's gather).
    std::shared_ptr<c10::GatheredContext> context() {
        // Inside TorchScript PyTorch's stack holds the script's frames too (stacks="python" gathers
        // Python and TorchScript frames): those events are left to PyTorch's gather, uncached.
        if (!torch::jit::currentCallstack().empty()) return pytorchs();
        RawFrame frames[maxFrames];
        const int n = readPythonFrames(frames, maxFrames);
        if (n < 0) return pytorchs();
        if (n == 0) return nullptr; // a thread without Python code (the autograd engine's): no stack
        const auto at = [&frames](size_t i) { return frames[i]; };
        const uint64_t key = StackCache::hash(n, at);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (const uint64_t k = cache_.find(key, n, at); k != StackCache::missing) return (*stacks_)[k];
        }
        return fresh(key, frames, n);
    }

    size_t size() {
        std::lock_guard<std::mutex> lock(mutex_);
        return stacks_->size();
    }

    // The cached stack numbered k (OwnTraceback::index).
    OwnTraceback* at(uint32_t k) {
        std::lock_guard<std::mutex> lock(mutex_);
        return k < stacks_->size() ? (*stacks_)[k].get() : nullptr;
    }

  private:
    // What PyTorch's own context function for stacks="python" gives.
    static std::shared_ptr<c10::GatheredContext> pytorchs() {
        return torch::CapturedTraceback::gather(true, true, false);
    }

    // A stack seen for the first time: a CapturedTraceback made as gather() makes one (its code objects
    // referenced; the GIL only for that), then cached. Its frames are still this thread's live
    // frames, so their code objects are alive until the references are taken.
    std::shared_ptr<c10::GatheredContext> fresh(uint64_t key, const RawFrame* frames, int n) {
        auto tb = std::make_shared<OwnTraceback>(); // as gather(false, false, false) makes one
        PyFrames& own = tb.get()->*framesMember();
        own.reserve(n);
        using Code =
            decltype(torch::CapturedTraceback::PyFrame::code); // void* (PyCodeObject* in older torch)
        for (int i = 0; i < n; ++i)
            own.push_back({static_cast<Code>(const_cast<void*>(frames[i].code)), frames[i].lasti});
        tb.get()->*unwinderMember() = unwinder_; // whose release() drops the references if tb is dropped
        {
            const PyGILState_STATE gil = PyGILState_Ensure();
            for (const auto& f : own) Py_INCREF(reinterpret_cast<PyObject*>(f.code));
            PyGILState_Release(gil);
        }
        const auto at = [frames](size_t i) { return frames[i]; };
        std::lock_guard<std::mutex> lock(mutex_);
        if (const uint64_t k = cache_.find(key, n, at); k != StackCache::missing) return (*stacks_)[k];
        if (stacks_->size() < maxStacks) {
            tb->index = static_cast<uint32_t>(stacks_->size());
            cache_.add(key, n, at, tb->index), stacks_->push_back(tb);
        }
        return tb;
    }

    torch::CapturedTraceback::Python* unwinder_ = nullptr;
    std::mutex mutex_;
    StackCache cache_; // raw stack -> index in stacks_
    // Never destroyed: the allocator's blocks and trace keep these contexts until the process ends.
    std::vector<std::shared_ptr<OwnTraceback>>* stacks_ = new std::vector<std::shared_ptr<OwnTraceback>>;
};

} // namespace vramscope_tracker
