#pragma once
// Retention analysis over a recorded RetentionGraph: the shortest path from a root to each block,
// blocks grouped by path signature (indices normalised), immediate dominators (Cooper-Harvey-
// Kennedy, under a virtual super-root) and the GPU bytes each node retains. Nodes that no root
// reaches are held only by unreachable reference cycles: a synthetic "unreachable cycle" root
// enters each such cluster at its node farthest from the blocks.
#include "model/Capture.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vs {

enum class RetentionVerdict {
    ModuleGlobal,
    LocalVariable,
    HeldFromCpp,
    UnreachableCycle,
    NoPythonOwner,
    GraphPool
};

struct RetentionGroup {
    std::string signature;        // root kind, then edge labels and node types; indices as [*]
    std::vector<uint32_t> blocks; // block nodes
    uint64_t bytes = 0;
    RetentionVerdict verdict = RetentionVerdict::ModuleGlobal;
    bool suspicious = false; // an indexed collection, a C++-held ctx or an unreachable cycle
    std::string hint;        // the usual PyTorch mistake this path looks like, if any
};

struct RetentionResult {
    static constexpr uint32_t kNone = UINT32_MAX;
    uint32_t superRoot = 0; // == nodes.size(); its children are the roots
    uint32_t cycleRoot = 0; // == nodes.size() + 1: the synthetic "unreachable cycle" root
    std::vector<std::pair<uint32_t, uint32_t>> virtualEdges; // (src, dst) edges from the virtual roots
    std::vector<uint32_t> parentEdge; // BFS tree edge into each node (index into graph edges), kNone at roots
    std::vector<uint32_t> idom;       // immediate dominator per node (superRoot/cycleRoot ids allowed)
    std::vector<uint64_t> retained;   // GPU bytes each node dominates (blocks included)
    std::vector<RetentionGroup> groups; // by bytes, largest first
    uint32_t unreachedBlocks = 0;       // blocks not reached even through cycles (truncated graph)
    uint64_t totalBytes = 0;
};

// `ignored` nodes (a retainer the user chose to ignore) are cut out with all their edges.
RetentionResult analyseRetention(const Capture& c, const RetentionGraph& g,
                                 const std::vector<uint32_t>& ignored = {});

// Node indices from a root (first) to `node` (last), following the shortest-path tree; the virtual
// roots are left out. Empty when unreached.
std::vector<uint32_t> retentionPath(const RetentionGraph& g, const RetentionResult& r, uint32_t node);
// "module scenarios → .FEATURE_CACHE (dict len=40) → [17] → Tensor[256, 1024] float32 → block 0x.. (1 MiB)"
std::string retentionPathText(const Capture& c, const RetentionGraph& g, const RetentionResult& r,
                              uint32_t node);
std::string_view retentionVerdictText(RetentionVerdict v);
std::string_view retentionVerdictShort(RetentionVerdict v); // for a table column
// A node's display text (virtual roots included).
std::string retentionNodeText(const Capture& c, const RetentionGraph& g, uint32_t node);

} // namespace vs
