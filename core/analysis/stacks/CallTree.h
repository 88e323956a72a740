#pragma once
// Surviving memory aggregated along call paths: top-down (from the outermost frame to the
// allocating one) or bottom-up (from the allocating frame to its callers), each node with the
// bytes and blocks below it. Feeds the stack trees and the flame graph.
#include "analysis/stacks/Survivors.h"
#include "model/Capture.h"

#include <vector>

namespace vs {

struct CallNode {
    FrameId frame;
    uint32_t parent = UINT32_MAX;
    uint64_t bytes = 0;
    uint32_t count = 0;
    std::vector<uint32_t> children; // largest first
};

class CallTree {
  public:
    enum class Direction { TopDown, BottomUp };
    // `hideInternal`: PyTorch/CPython/C++ runtime frames are skipped (their cost goes to the
    // nearest shown frame). `hideLibraries`: library frames too (torch, lightning, transformers,
    // runpy; PyTorch's and CUDA's modules at the CUDA level), except a stack's allocation site when
    // it has no frame of the user's own. Node 0 is the root (no frame) and holds the total.
    static CallTree build(const Capture& c, const std::vector<SurvivorGroup>& groups, Direction d,
                          bool hideInternal, bool hideLibraries = false);

    const CallNode& node(uint32_t i) const { return nodes_[i]; }
    size_t size() const { return nodes_.size(); }
    uint32_t depth(uint32_t i) const;

  private:
    std::vector<CallNode> nodes_;
};

} // namespace vs
