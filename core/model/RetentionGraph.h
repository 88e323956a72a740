#pragma once
// A retention graph as the recorder collected it: the Python objects (and C++-held holders) on the
// way from roots to chosen GPU blocks, with labelled reference edges. Record kind 16 in .vscap.
#include "Ids.h"

#include <cstdint>
#include <vector>

namespace vs {

enum class RetentionNodeKind : uint8_t {
    Object = 0,
    Tensor = 1,
    Block = 2,
    Autograd = 3,
    RootModule = 10,
    RootFrame = 11,
    RootExternal = 12, // held from C/C++: referenced, but by no tracked Python object
    RootPool = 13,     // a CUDA graph's private memory pool
};
constexpr bool isRoot(RetentionNodeKind k) {
    return static_cast<uint8_t>(k) >= 10;
}

enum class RetentionEdgeKind : uint8_t {
    Ref = 0,
    Local = 1,
    Grad = 2,
    Autograd = 3,
    Saved = 4,
    Storage = 5,
    Attr = 6
};

struct RetentionNode {
    RetentionNodeKind kind = RetentionNodeKind::Object;
    StringId type;
    StringId label;
    uint64_t gpuBytes = 0; // blocks only
    uint64_t address = 0;  // blocks only
};

struct RetentionEdge {
    uint32_t src = 0, dst = 0; // src keeps dst alive
    RetentionEdgeKind kind = RetentionEdgeKind::Ref;
    StringId label; // Python syntax: ".attr", "[3]", "['key']", "local 'x'", ".grad_fn"...
};

struct RetentionGraph {
    int device = 0;
    int64_t timeUs = 0;
    StringId trigger; // "exit", "oom", "request"
    bool truncated = false;
    uint64_t objectsScanned = 0;
    uint32_t millis = 0;
    std::vector<RetentionNode> nodes;
    std::vector<RetentionEdge> edges;
};

} // namespace vs
