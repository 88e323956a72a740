#pragma once
// The peak of allocated memory in each phase of a run: each epoch (the program's phase marker; without
// one, each training iteration), each evaluation (forward passes that no backward pass follows, marked
// or not), the training between them, and the start-up before the first; each phase's peak against the
// previous phase of its kind.
// The per-epoch peak check people write by hand (reset_peak_memory_stats at each phase's start,
// max_memory_allocated at its end) reads the same figures.
#include "analysis/growth/Iterations.h"
#include "analysis/replay/Replay.h"
#include "model/Capture.h"

#include <string>
#include <vector>

namespace vs {

enum class PhaseKind : uint8_t { StartUp, Epoch, Step, Training, Evaluation };

struct PhaseRow {
    PhaseKind kind = PhaseKind::Training;
    std::string name;            // "epoch 3", "evaluation 2", "training", "start-up"
    uint32_t first = 0, end = 0; // events [first, end)
    int64_t peak = 0;            // highest allocated after an event of the phase
    uint32_t peakEvent = 0;      // the first event that reaches it
    int64_t previousPeak = -1;   // of the previous phase of the same kind; -1: none
    double risePercent() const { // over the previous phase of the same kind (0 without one)
        return previousPeak > 0 ? 100.0 * double(peak - previousPeak) / double(previousPeak) : 0;
    }
};

struct PhaseTable {
    std::vector<PhaseRow> rows; // in time order, covering every event once
    std::string epochMarker;    // the annotation that marks epochs, if any
    // The row holding event `e`.
    size_t rowOf(uint32_t e) const;
    // The largest rise of an epoch's (else an iteration's) peak over the previous one's, in percent,
    // the first of them (warm-up) compared with nothing; -1 when fewer than three. `at`: its row.
    double worstRisePercent(size_t* at = nullptr) const;
};

PhaseTable phaseTable(const Capture& c, const DeviceTrace& t, const ReplayResult& r, const Iterations& its);

} // namespace vs
