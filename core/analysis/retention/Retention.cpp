#include "analysis/retention/Retention.h"

#include "util/Format.h"

#include <algorithm>
#include <map>

namespace vs {
namespace {

constexpr uint32_t kNone = RetentionResult::kNone;

// Forward adjacency (src -> edges) over the graph plus the two virtual roots.
struct Adjacency {
    std::vector<uint32_t> offset, edge; // edge index; virtual edges are >= graph edge count
    std::vector<std::pair<uint32_t, uint32_t>> virtualEdges; // (src, dst) of virtual edges
};

Adjacency adjacency(const RetentionGraph& g, const std::vector<char>& cut,
                    const std::vector<std::pair<uint32_t, uint32_t>>& extra) {
    const uint32_t n = static_cast<uint32_t>(g.nodes.size()) + 2;
    Adjacency a;
    a.virtualEdges = extra;
    a.offset.assign(n + 1, 0);
    auto usable = [&](const RetentionEdge& e) { return !cut[e.src] && !cut[e.dst]; };
    for (const auto& e : g.edges)
        if (usable(e)) ++a.offset[e.src + 1];
    for (const auto& [s, d] : extra) ++a.offset[s + 1];
    for (uint32_t i = 0; i < n; ++i) a.offset[i + 1] += a.offset[i];
    a.edge.resize(a.offset[n]);
    std::vector<uint32_t> fill(a.offset.begin(), a.offset.end() - 1);
    for (uint32_t i = 0; i < g.edges.size(); ++i)
        if (usable(g.edges[i])) a.edge[fill[g.edges[i].src]++] = i;
    for (uint32_t k = 0; k < extra.size(); ++k) a.edge[fill[extra[k].first]++] = uint32_t(g.edges.size()) + k;
    return a;
}

uint32_t edgeDst(const RetentionGraph& g, const Adjacency& a, uint32_t e) {
    return e < g.edges.size() ? g.edges[e].dst : a.virtualEdges[e - g.edges.size()].second;
}

// BFS from `from`, recording the edge each node was first reached by.
void bfs(const RetentionGraph& g, const Adjacency& a, uint32_t from, std::vector<uint32_t>& parent,
         std::vector<char>& seen) {
    std::vector<uint32_t> queue{from};
    seen[from] = 1;
    for (size_t h = 0; h < queue.size(); ++h)
        for (uint32_t k = a.offset[queue[h]]; k < a.offset[queue[h] + 1]; ++k) {
            const uint32_t d = edgeDst(g, a, a.edge[k]);
            if (seen[d]) continue;
            seen[d] = 1, parent[d] = a.edge[k];
            queue.push_back(d);
        }
}

// Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm" (2001), over reverse postorder.
std::vector<uint32_t> dominators(const RetentionGraph& g, const Adjacency& a, uint32_t root,
                                 std::vector<uint32_t>& rpo) {
    const uint32_t n = static_cast<uint32_t>(a.offset.size() - 1);
    std::vector<uint32_t> post, order(n, kNone), idom(n, kNone);
    std::vector<std::pair<uint32_t, uint32_t>> stack{{root, a.offset[root]}};
    std::vector<char> seen(n, 0);
    seen[root] = 1;
    while (!stack.empty()) { // iterative DFS for the postorder
        auto& [v, k] = stack.back();
        if (k == a.offset[v + 1]) {
            post.push_back(v), stack.pop_back();
            continue;
        }
        const uint32_t d = edgeDst(g, a, a.edge[k++]);
        if (!seen[d]) seen[d] = 1, stack.emplace_back(d, a.offset[d]);
    }
    rpo.assign(post.rbegin(), post.rend());
    for (uint32_t i = 0; i < rpo.size(); ++i) order[rpo[i]] = i;
    std::vector<std::vector<uint32_t>> preds(n);
    for (uint32_t v : rpo)
        for (uint32_t k = a.offset[v]; k < a.offset[v + 1]; ++k) preds[edgeDst(g, a, a.edge[k])].push_back(v);
    auto intersect = [&](uint32_t x, uint32_t y) {
        while (x != y) {
            while (order[x] > order[y]) x = idom[x];
            while (order[y] > order[x]) y = idom[y];
        }
        return x;
    };
    idom[root] = root;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 1; i < rpo.size(); ++i) {
            const uint32_t v = rpo[i];
            uint32_t best = kNone;
            for (uint32_t p : preds[v])
                if (idom[p] != kNone) best = best == kNone ? p : intersect(p, best);
            if (best != idom[v]) idom[v] = best, changed = true;
        }
    }
    return idom;
}

// Positions in lists and int-like keys vary per block: "[17]" and "[-3]" become "[*]".
std::string normalised(std::string_view label) {
    std::string out;
    for (size_t i = 0; i < label.size(); ++i) {
        size_t j = i + 1;
        if (label[i] == '[') {
            if (j < label.size() && label[j] == '-') ++j;
            const size_t digits = j;
            while (j < label.size() && label[j] >= '0' && label[j] <= '9') ++j;
            if (j > digits && j < label.size() && label[j] == ']') {
                out.append("[*]");
                i = j;
                continue;
            }
        }
        out.push_back(label[i]);
    }
    return out;
}

} // namespace

std::string_view retentionVerdictText(RetentionVerdict v) {
    switch (v) {
    case RetentionVerdict::LocalVariable:
        return "held by a local variable";
    case RetentionVerdict::HeldFromCpp:
        return "held from C/C++";
    case RetentionVerdict::UnreachableCycle:
        return "held only by an unreachable reference cycle";
    case RetentionVerdict::NoPythonOwner:
        return "no Python object owns it (allocator-internal: cuBLAS/cuDNN workspace, graph pool, C++ "
               "tensor)";
    case RetentionVerdict::GraphPool:
        return "held by a CUDA graph's private pool (freed with the graph)";
    case RetentionVerdict::ModuleGlobal:
        break;
    }
    return "held by a module global";
}

std::string_view retentionVerdictShort(RetentionVerdict v) {
    switch (v) {
    case RetentionVerdict::LocalVariable:
        return "local variable";
    case RetentionVerdict::HeldFromCpp:
        return "C/C++";
    case RetentionVerdict::UnreachableCycle:
        return "unreachable cycle";
    case RetentionVerdict::NoPythonOwner:
        return "no Python owner";
    case RetentionVerdict::GraphPool:
        return "CUDA graph pool";
    case RetentionVerdict::ModuleGlobal:
        break;
    }
    return "module global";
}

std::string retentionNodeText(const Capture& c, const RetentionGraph& g, uint32_t node) {
    if (node == g.nodes.size()) return "roots";
    if (node == g.nodes.size() + 1) return "unreachable cycle (collected at the next gc.collect())";
    const auto& n = g.nodes[node];
    std::string text(c.strings.text(n.label));
    if (n.kind == RetentionNodeKind::Block) text += " (" + humanBytes(static_cast<int64_t>(n.gpuBytes)) + ")";
    return text;
}

std::vector<uint32_t> retentionPath(const RetentionGraph& g, const RetentionResult& r, uint32_t node) {
    std::vector<uint32_t> path;
    const uint32_t n = static_cast<uint32_t>(g.nodes.size());
    for (uint32_t v = node; v < n + 2 && path.size() <= g.nodes.size() + 2;) {
        path.push_back(v);
        const uint32_t e = r.parentEdge[v];
        if (e == kNone) break;
        v = e < g.edges.size() ? g.edges[e].src : r.virtualEdges[e - g.edges.size()].first;
    }
    std::reverse(path.begin(), path.end());
    if (!path.empty() && path.front() == r.superRoot) path.erase(path.begin());
    if (path.empty() || (path.front() >= n && path.front() != r.cycleRoot)) return {};
    return path;
}

std::string retentionPathText(const Capture& c, const RetentionGraph& g, const RetentionResult& r,
                              uint32_t node) {
    const auto path = retentionPath(g, r, node);
    std::string out;
    for (size_t i = 0; i < path.size(); ++i) {
        if (i) {
            const uint32_t e = r.parentEdge[path[i]];
            out.append(" \u2192 ");
            if (e < g.edges.size() && !c.strings.text(g.edges[e].label).empty())
                out.append(c.strings.text(g.edges[e].label)).append(" \u2192 ");
        }
        out += retentionNodeText(c, g, path[i]);
    }
    return out;
}

namespace {

RetentionVerdict verdictOf(const RetentionGraph& g, const RetentionResult& r, uint32_t root) {
    if (root == r.cycleRoot) return RetentionVerdict::UnreachableCycle;
    switch (g.nodes[root].kind) {
    case RetentionNodeKind::RootFrame:
        return RetentionVerdict::LocalVariable;
    case RetentionNodeKind::RootExternal:
        return RetentionVerdict::HeldFromCpp;
    case RetentionNodeKind::RootPool:
        return RetentionVerdict::GraphPool;
    default:
        return RetentionVerdict::ModuleGlobal;
    }
}

// The usual PyTorch mistakes, recognised from the path's shape.
std::string hintFor(const Capture& c, const RetentionGraph& g, const std::vector<uint32_t>& path,
                    const RetentionResult& r, RetentionVerdict v, bool indexed) {
    bool graphKept = false, ctxAttr = false;
    for (size_t i = 1; i < path.size(); ++i) {
        const uint32_t e = r.parentEdge[path[i]];
        if (e >= g.edges.size()) continue;
        graphKept |=
            g.edges[e].kind == RetentionEdgeKind::Saved || g.edges[e].kind == RetentionEdgeKind::Autograd;
        const auto& src = g.nodes[g.edges[e].src];
        ctxAttr |= g.edges[e].kind == RetentionEdgeKind::Attr && src.kind != RetentionNodeKind::Tensor &&
                   c.strings.text(src.type).find("Backward") != std::string_view::npos;
    }
    if (ctxAttr)
        return "An attribute on a custom autograd Function's ctx keeps a tensor, in a reference cycle "
               "through the "
               "autograd graph (freed only when gc happens to run): use ctx.save_for_backward() instead.";
    if (v == RetentionVerdict::NoPythonOwner || v == RetentionVerdict::GraphPool) return {};
    if (v == RetentionVerdict::UnreachableCycle)
        return "A reference cycle keeps these tensors until the next gc.collect(): break it (weakref, or "
               "clear "
               "the back-reference) or do not disable gc.";
    if (indexed && graphKept)
        return "Stored tensors keep their autograd graphs (saved activations): store loss.item() or "
               "out.detach(), or compute them under torch.no_grad().";
    if (indexed && v == RetentionVerdict::ModuleGlobal)
        return "A module-level list/dict keeps growing: bound it or clear it, store .item() or "
               ".detach().cpu(); "
               "if a hook appends to it, remove the hook (handle.remove()).";
    if (indexed && v == RetentionVerdict::LocalVariable)
        return "A local list/dict keeps these tensors until its function returns: append .item() or "
               ".detach() "
               "instead, or clear it.";
    return {};
}

} // namespace

RetentionResult analyseRetention(const Capture& c, const RetentionGraph& g,
                                 const std::vector<uint32_t>& ignored) {
    const uint32_t n = static_cast<uint32_t>(g.nodes.size());
    RetentionResult r;
    r.superRoot = n, r.cycleRoot = n + 1;
    std::vector<char> cut(n + 2, 0);
    for (uint32_t i : ignored)
        if (i < n) cut[i] = 1;
    std::vector<std::pair<uint32_t, uint32_t>> extra;
    for (uint32_t i = 0; i < n; ++i)
        if (isRoot(g.nodes[i].kind) && !cut[i]) extra.emplace_back(r.superRoot, i);
    extra.emplace_back(r.superRoot, r.cycleRoot);
    // What the real roots do not reach is held by cycles: enter each cluster at its node farthest
    // from the blocks (the collector lists nodes in breadth-first order from the blocks).
    Adjacency a = adjacency(g, cut, extra);
    std::vector<uint32_t> parent(n + 2, kNone);
    std::vector<char> seen(n + 2, 0);
    bfs(g, a, r.superRoot, parent, seen);
    std::vector<char> referenced(n, 0);
    for (const auto& e : g.edges)
        if (!cut[e.src]) referenced[e.dst] = 1;
    for (uint32_t i = n; i-- > 0;) {
        if (seen[i] || cut[i]) continue;
        if (g.nodes[i].kind == RetentionNodeKind::Block && !referenced[i])
            continue; // nothing in Python refers to it at all
        extra.emplace_back(r.cycleRoot, i);
        // the real edges reach the rest of the cluster; bfs only sets parents of unseen nodes
        bfs(g, a, i, parent, seen);
        parent[i] = uint32_t(g.edges.size() + extra.size() - 1);
    }
    a = adjacency(g, cut, extra);
    r.virtualEdges = extra;
    r.parentEdge = parent;
    std::vector<uint32_t> rpo;
    r.idom = dominators(g, a, r.superRoot, rpo);
    r.retained.assign(n + 2, 0);
    for (uint32_t i = 0; i < n; ++i)
        if (g.nodes[i].kind == RetentionNodeKind::Block) {
            r.retained[i] = g.nodes[i].gpuBytes, r.totalBytes += g.nodes[i].gpuBytes;
            r.unreachedBlocks += r.idom[i] == kNone;
        }
    for (auto it = rpo.rbegin(); it != rpo.rend(); ++it)
        if (*it != r.superRoot && r.idom[*it] != kNone) r.retained[r.idom[*it]] += r.retained[*it];

    std::map<std::string, RetentionGroup> bySignature;
    for (uint32_t b = 0; b < n; ++b) {
        if (g.nodes[b].kind != RetentionNodeKind::Block || cut[b]) continue;
        auto path = retentionPath(g, r, b);
        if (path.empty()) path = {b}; // no owner in Python
        std::string sig = path.size() == 1 ? std::string("no Python owner")
                          : path.front() == r.cycleRoot
                              ? "unreachable cycle"
                              : std::string(c.strings.text(g.nodes[path.front()].label));
        bool indexed = false;
        for (size_t i = 1; i < path.size(); ++i) {
            const uint32_t e = r.parentEdge[path[i]];
            if (e < g.edges.size()) {
                const std::string label = normalised(c.strings.text(g.edges[e].label));
                // an indexed container (list, int-keyed dict), not autograd's next_functions[i]
                indexed |=
                    g.edges[e].kind == RetentionEdgeKind::Ref && label.find("[*]") != std::string::npos;
                sig.append(" \u2192 ").append(label);
            }
            if (path[i] < n) sig.append(" ").append(c.strings.text(g.nodes[path[i]].type));
        }
        auto& grp = bySignature[sig];
        if (grp.blocks.empty()) {
            grp.signature = sig;
            grp.verdict = path.size() == 1 ? RetentionVerdict::NoPythonOwner : verdictOf(g, r, path.front());
            grp.hint = hintFor(c, g, path, r, grp.verdict, indexed);
            grp.suspicious = !grp.hint.empty();
        }
        grp.blocks.push_back(b);
        grp.bytes += g.nodes[b].gpuBytes;
    }
    for (auto& [sig, grp] : bySignature) r.groups.push_back(std::move(grp));
    std::sort(r.groups.begin(), r.groups.end(),
              [](const auto& x, const auto& y) { return x.bytes > y.bytes; });
    return r;
}

} // namespace vs
