#pragma once
// The evaluations a program marks itself: ranges of its own annotations (torch.profiler's
// record_function, which PyTorch's memory history keeps as START/END annotations) whose name says
// evaluation or validation ("evaluate", "validation_epoch", "eval 3"). Where the program says so, its
// word is the phase: phases guessed from a snapshot's stacks cannot tell an evaluation whose forward
// passes run straight into the next training step's from that step.
#include "analysis/categories/PhaseWindows.h"
#include "model/Capture.h"

#include <string_view>
#include <vector>

namespace vs {

bool namesEvaluation(std::string_view annotation); // "evaluate", "Validation", "eval_loop", ...

// In time order, each from its START to its END (INT64_MAX: open at the end); nested ones merged.
// Nothing where the names are points only (vramscope.mark), which tell no end.
std::vector<PhaseWindows::Window> markedEvaluations(const Capture& c, int device);

} // namespace vs
