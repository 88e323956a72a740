#pragma once
// The moments the recorder itself paused the program (a retention graph walking the heap): the
// recorder writes an annotation pair named kPauseAnnotation around each. On the timeline they are
// flat stretches that look like a stalled program, so they are drawn and counted as the recorder's.
#include "model/Capture.h"

#include <string>
#include <string_view>
#include <vector>

namespace vs {

constexpr std::string_view kPauseAnnotation = "vramscope: recorder paused the program";

struct RecorderPause {
    int64_t fromUs = 0, toUs = 0;
};

// The pauses of one device (by its ordinal), in time order; a start without an end lasts to the
// capture's last annotation or event on that device at most.
std::vector<RecorderPause> recorderPauses(const Capture& c, int device);

// Total seconds paused on any device (pauses overlap across devices: each pause counted once).
double recorderPauseSeconds(const Capture& c);

// What the recorder timed of its own cost (its start, its stop, its writer thread's CPU), as it
// wrote it in the meta record "recorder_cost" (capture/python/vramscope/cost.py); "" if none.
std::string recorderCost(const Capture& c);

} // namespace vs
