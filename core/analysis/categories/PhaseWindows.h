#pragma once
// Where a training loop was at any moment, from the recorder's phase annotations ("forward",
// "backward", "optimizer.step", START/END, written from PyTorch's global hooks: recorder phases.py).
// Phases nest (Lightning runs forward and backward inside the optimizer's step closure): the
// innermost one counts. Every START opens a new instance, so "freed in the phase it was made in"
// is a comparison of instance numbers.
#include "model/Capture.h"

#include <cstdint>
#include <vector>

namespace vs {

enum class Phase : uint8_t { None, Forward, Backward, Optimizer };

struct PhaseAt {
    Phase phase = Phase::None;
    uint32_t instance = 0; // 0 outside any phase; otherwise the START's number, counted from 1
    uint32_t epoch = 0;    // phase changes at or before the moment: equal epochs, no change between
};

class PhaseWindows {
  public:
    // From every device's annotations: phases are the process's main thread's, whichever device
    // its allocations went to.
    explicit PhaseWindows(const Capture& c);
    // Without the recorder's annotations (a PyTorch snapshot): the phases guessed from the
    // allocations' Python stacks on one device — torch/optim/ is the optimizer step, a module's
    // _call_impl the forward pass, torch/autograd/ or no Python frame at all (the autograd engine's
    // thread) the backward pass — each maximal run of one phase a window. Empty when the capture
    // has no Python frames.
    static PhaseWindows fromStacks(const Capture& c, const DeviceTrace& t);
    // The recorder's phases when the capture has them, else (a PyTorch snapshot with Python stacks)
    // those guessed from one device's stacks.
    static PhaseWindows of(const Capture& c, const DeviceTrace& t);
    bool empty() const { return changes_.empty(); }
    bool guessed() const { return guessed_; } // from stacks: a whole evaluation is one forward window
    PhaseAt at(int64_t timeUs) const;         // the phase an event at this moment happened in
    // The moment the instance ended (INT64_MAX while open at the end of the recording).
    int64_t endOf(uint32_t instance) const;
    // When the first instance of a phase ended (INT64_MAX: none did).
    int64_t firstEndOf(Phase p) const;
    // Stretches of two or more forward passes none of which a backward pass follows before the next:
    // evaluation or inference between training steps, whether the program marks them or not. From
    // the first such forward's start to where training resumes (INT64_MAX: open at the end).
    struct Window {
        int64_t fromUs = 0, toUs = 0;
    };
    std::vector<Window> evaluations() const;

  private:
    PhaseWindows() = default;
    struct Mark {
        int64_t timeUs;
        Phase phase;
        bool start;
    };
    void build(std::vector<Mark> marks);
    struct Change {
        int64_t timeUs;
        PhaseAt now;
    };
    std::vector<Change> changes_;
    std::vector<int64_t> ends_;   // by instance - 1
    std::vector<Phase> phases_;   // by instance - 1
    std::vector<int64_t> starts_; // by instance - 1
    bool guessed_ = false;        // from stacks (fromStacks), not the recorder's annotations
};

} // namespace vs
