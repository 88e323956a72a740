#pragma once
// Whether the memory alive at an out-of-memory failure was collected within one phase of the run (an
// evaluation keeping every batch's outputs, an epoch's list cleared at its end) rather than across
// the run: the difference between an accumulation and a leak, and between an accumulation and a
// step too large for the device, when the growth analysis alone cannot tell at the failure.
#include "analysis/CaptureAnalysis.h"
#include "analysis/growth/GrowthRegions.h"

#include <cstdint>

namespace vs {

// The growth kept to the failure belongs to a phase: it is an accumulation already (the unfinished
// tooth of a sawtooth included: GrowthRegions calls it so); or it began inside an evaluation
// (forward passes between training steps: a run that never trained has no evaluation apart from
// itself, its loop is the run).
bool growthWithinPhase(const CaptureAnalysis& a, size_t device, const GrowthRegion& r, uint32_t oom);

// One stack's blocks made during the evaluation around the failure and still alive at it.
struct PassesKept {
    StackId stack;
    uint64_t bytes = 0;
    uint32_t blocks = 0;
    uint32_t passes = 0; // forward passes that made them
};

// What an evaluation kept across its forward passes up to the failure, when no growth region reaches
// it (the failure cut the phase short, so nothing was released to mark it). A forward pass without
// a backward pass frees each intermediate once the next layer has consumed it, so no more than two
// blocks of one stack (a layer's input and output) are alive at once within it: blocks of one stack
// made by three passes or more were kept across them. Where the passes are not recorded (phases
// guessed from a PyTorch snapshot's stacks) only an evaluation the program marks counts (a
// record_function range: MarkedEvaluations), and its passes are at least half the stack's blocks
// alive. Nothing (passes 0) otherwise.
PassesKept keptAcrossPasses(const CaptureAnalysis& a, size_t device, uint32_t oom);

} // namespace vs
