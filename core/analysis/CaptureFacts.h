#pragma once
// What is known about a capture apart from its events, as sections of label/value rows for the
// Capture Properties dialog: the file, each device's trace, the allocator settings, what the
// recorder wrote about the program (argv, pid, torch version, stacks...), the modules the CUPTI
// agent's native frames come from (load address, build id), and the warnings.
#include "analysis/CaptureAnalysis.h"

#include <string>
#include <vector>

namespace vs {

struct FactRow {
    std::string label, value;
};
struct FactSection {
    std::string title;
    std::vector<FactRow> rows;
};

std::vector<FactSection> captureFacts(const CaptureAnalysis& a, uint64_t fileBytes);

} // namespace vs
