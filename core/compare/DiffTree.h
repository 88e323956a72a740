#pragma once
// The difference of two captures along call paths, for the tree and the flame graph of a
// comparison: each node a frame (outermost at the root's children), with the bytes below it in A and
// in B, weighted by the size of the difference below it (sum of |B - A| of its stacks) so that
// widths nest and a path where nothing changed takes no room.
#include "CaptureDiff.h"

#include <string>
#include <vector>

namespace vs {

struct DiffNode {
    std::string frame;
    uint32_t parent = UINT32_MAX;
    int64_t a = 0, b = 0;
    uint64_t weight = 0;
    std::vector<uint32_t> children; // heaviest first

    int64_t delta() const { return b - a; }
};

class DiffTree {
  public:
    // From the stack rows of a CaptureDiff; `live`: bytes alive at the end, else at the peak.
    static DiffTree build(const std::vector<DiffRow>& stacks, bool live);
    const DiffNode& node(uint32_t i) const { return nodes_[i]; }
    size_t size() const { return nodes_.size(); }
    uint32_t depth(uint32_t i) const;

  private:
    std::vector<DiffNode> nodes_ = std::vector<DiffNode>(1); // the root
};

} // namespace vs
