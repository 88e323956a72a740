#pragma once
// The memory budget of the analyses built on loaded captures (a comparison's stack keys): the loads'
// own (io/MemoryBudget.h: half of the RAM unless --max-memory), so that one setting bounds both, and
// the refusal names the step that would have passed it.
#include <cstdint>
#include <string>

namespace vs {

uint64_t analysisBudget();
// Throws LoadError: "<step>: <what> would need more than 8 GiB of memory; raise --max-memory if you
// trust the files".
[[noreturn]] void analysisOverBudget(const std::string& step, const std::string& what, uint64_t budget);

} // namespace vs
