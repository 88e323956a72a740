#include "LoadMeter.h"

#include "LoadError.h"
#include "MemoryBudget.h"

#include <algorithm>

namespace vs {

void LoadMeter::boundByInput(uint64_t inputBytes) {
    inputBytes_ = inputBytes;
    const uint64_t byInput =
        inputBytes > (UINT64_MAX - kSlack) / kExpansion ? UINT64_MAX : inputBytes * kExpansion + kSlack;
    limit_ = std::min(budget_, byInput);
}

void LoadMeter::exceeded(uint64_t offset) const {
    if (limit_ == budget_) throw LoadError(MemoryBudget::exceededMessage(budget_), offset);
    throw LoadError("the input would expand to more than " + std::to_string(kExpansion) + " times its " +
                        MemoryBudget::describe(inputBytes_) +
                        " in memory (memo slots, containers or shared references out of proportion), "
                        "which no PyTorch memory snapshot does",
                    offset);
}

} // namespace vs
