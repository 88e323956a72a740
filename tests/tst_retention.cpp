// Retention analysis on synthetic graphs with known answers: shortest paths, dominators and
// retained bytes, unreachable cycles, blocks no Python object owns, signatures that normalise
// indices, ignoring a retainer, and the hints for the usual PyTorch mistakes.
#include "analysis/retention/Retention.h"

#include <QtTest>

using namespace vs;

namespace {
// Builds a RetentionGraph by name: node("module m", RootModule), edge("module m", "dict", ".CACHE").
struct Builder {
    Capture c;
    RetentionGraph g;
    std::map<std::string, uint32_t> ids;
    uint32_t node(const std::string& label, RetentionNodeKind kind = RetentionNodeKind::Object,
                  const std::string& type = "object", uint64_t bytes = 0) {
        if (auto it = ids.find(label); it != ids.end()) return it->second;
        RetentionNode n;
        n.kind = kind, n.label = c.strings.intern(label), n.type = c.strings.intern(type), n.gpuBytes = bytes;
        g.nodes.push_back(n);
        return ids[label] = uint32_t(g.nodes.size() - 1);
    }
    uint32_t block(const std::string& label, uint64_t bytes) {
        return node(label, RetentionNodeKind::Block, "block", bytes);
    }
    void edge(const std::string& from, const std::string& to, const std::string& label,
              RetentionEdgeKind kind = RetentionEdgeKind::Ref) {
        g.edges.push_back({ids.at(from), ids.at(to), kind, c.strings.intern(label)});
    }
    const RetentionGroup* groupOf(const RetentionResult& r, const std::string& blockLabel) const {
        for (const auto& grp : r.groups)
            for (uint32_t b : grp.blocks)
                if (b == ids.at(blockLabel)) return &grp;
        return nullptr;
    }
};
} // namespace

class TestRetention : public QObject {
    Q_OBJECT
  private slots:
    void shortestPathIsChosen();
    void dominatorsAndRetainedBytes();
    void unreachableCycleIsItsOwnRoot();
    void blockWithoutOwner();
    void indicesAreNormalisedIntoOneGroup();
    void ignoringARetainerFindsTheNextPath();
    void hintsForUsualMistakes();
};

void TestRetention::shortestPathIsChosen() {
    Builder b;
    b.node("module m", RetentionNodeKind::RootModule, "module");
    b.node("a"), b.node("b"), b.node("c"), b.node("t", RetentionNodeKind::Tensor, "Tensor");
    b.block("blk", 1 << 20);
    b.edge("module m", "a", ".A"), b.edge("a", "b", ".b"), b.edge("b", "c", ".c"), b.edge("c", "t", ".t");
    b.edge("module m", "t", ".T"); // the short way
    b.edge("t", "blk", "storage", RetentionEdgeKind::Storage);
    const auto r = analyseRetention(b.c, b.g);
    const auto path = retentionPath(b.g, r, b.ids["blk"]);
    QCOMPARE(path, (std::vector<uint32_t>{b.ids["module m"], b.ids["t"], b.ids["blk"]}));
    QCOMPARE(QString::fromStdString(retentionPathText(b.c, b.g, r, b.ids["blk"])),
             QString("module m \u2192 .T \u2192 t \u2192 storage \u2192 blk (1.00 MiB)"));
}

void TestRetention::dominatorsAndRetainedBytes() {
    // m -> d -> {t1, t2} -> blocks; f -> t2 as well: d dominates t1 only, t2 is shared.
    Builder b;
    b.node("module m", RetentionNodeKind::RootModule, "module");
    b.node("frame f", RetentionNodeKind::RootFrame, "frame");
    b.node("d", RetentionNodeKind::Object, "dict");
    b.node("t1", RetentionNodeKind::Tensor, "Tensor"), b.node("t2", RetentionNodeKind::Tensor, "Tensor");
    b.block("b1", 100), b.block("b2", 200);
    b.edge("module m", "d", ".D"), b.edge("d", "t1", "[1]"), b.edge("d", "t2", "[2]"),
        b.edge("frame f", "t2", "local 'x'");
    b.edge("t1", "b1", "storage", RetentionEdgeKind::Storage),
        b.edge("t2", "b2", "storage", RetentionEdgeKind::Storage);
    const auto r = analyseRetention(b.c, b.g);
    QCOMPARE(r.idom[b.ids["t1"]], b.ids["d"]);
    QCOMPARE(r.idom[b.ids["t2"]], r.superRoot); // two roots reach it
    QCOMPARE(r.idom[b.ids["b2"]], b.ids["t2"]);
    QCOMPARE(r.retained[b.ids["d"]], uint64_t(100));
    QCOMPARE(r.retained[b.ids["module m"]], uint64_t(100));
    QCOMPARE(r.retained[b.ids["t2"]], uint64_t(200));
    QCOMPARE(r.retained[b.ids["frame f"]], uint64_t(0));
    QCOMPARE(r.totalBytes, uint64_t(300));
}

void TestRetention::unreachableCycleIsItsOwnRoot() {
    Builder b;
    b.node("x"), b.node("y"), b.node("t", RetentionNodeKind::Tensor, "Tensor");
    b.block("blk", 64);
    b.edge("x", "y", ".sibling"), b.edge("y", "x", ".sibling"), b.edge("y", "t", ".data");
    b.edge("t", "blk", "storage", RetentionEdgeKind::Storage);
    const auto r = analyseRetention(b.c, b.g);
    const auto* grp = b.groupOf(r, "blk");
    QVERIFY(grp);
    QCOMPARE(grp->verdict, RetentionVerdict::UnreachableCycle);
    QVERIFY(grp->suspicious);
    QVERIFY(QString::fromStdString(grp->hint).contains("gc.collect()"));
    const auto path = retentionPath(b.g, r, b.ids["blk"]);
    QCOMPARE(path.front(), r.cycleRoot);
    QCOMPARE(path.back(), b.ids["blk"]);
    QCOMPARE(r.retained[r.cycleRoot], uint64_t(64));
}

void TestRetention::blockWithoutOwner() {
    Builder b;
    b.block("workspace", 32 << 20);
    const auto r = analyseRetention(b.c, b.g);
    QCOMPARE(r.groups.size(), size_t(1));
    QCOMPARE(r.groups[0].verdict, RetentionVerdict::NoPythonOwner);
    QVERIFY(!r.groups[0].suspicious);
}

void TestRetention::indicesAreNormalisedIntoOneGroup() {
    Builder b;
    b.node("module m", RetentionNodeKind::RootModule, "module");
    b.node("lst", RetentionNodeKind::Object, "list");
    for (int i = 0; i < 5; ++i) {
        // (string concatenation here trips GCC 12's false -Wrestrict)
        const std::string t = std::string("t").append(std::to_string(i));
        const std::string k = std::string("b").append(std::to_string(i));
        const std::string index = std::string("[").append(std::to_string(i * 7)).append("]");
        b.node(t, RetentionNodeKind::Tensor, "Tensor"), b.block(k, 10);
        b.edge("lst", t, index), b.edge(t, k, "storage", RetentionEdgeKind::Storage);
    }
    b.edge("module m", "lst", ".SEEN");
    const auto r = analyseRetention(b.c, b.g);
    QCOMPARE(r.groups.size(), size_t(1));
    QCOMPARE(r.groups[0].blocks.size(), size_t(5));
    QCOMPARE(r.groups[0].bytes, uint64_t(50));
    QVERIFY2(QString::fromStdString(r.groups[0].signature).contains("[*]"), r.groups[0].signature.c_str());
    QCOMPARE(r.groups[0].verdict, RetentionVerdict::ModuleGlobal);
    QVERIFY(QString::fromStdString(r.groups[0].hint).contains("module-level list/dict"));
    QCOMPARE(r.retained[b.ids["lst"]], uint64_t(50));
}

void TestRetention::ignoringARetainerFindsTheNextPath() {
    Builder b;
    b.node("module m", RetentionNodeKind::RootModule, "module");
    b.node("frame f", RetentionNodeKind::RootFrame, "frame");
    b.node("cache", RetentionNodeKind::Object, "dict"), b.node("t", RetentionNodeKind::Tensor, "Tensor");
    b.block("blk", 8);
    b.edge("module m", "cache", ".CACHE"), b.edge("cache", "t", "[3]"), b.edge("frame f", "t", "local 't'");
    b.edge("t", "blk", "storage", RetentionEdgeKind::Storage);
    b.node("other", RetentionNodeKind::Object, "x");
    const auto before = analyseRetention(b.c, b.g);
    QCOMPARE(retentionPath(b.g, before, b.ids["blk"]).front(), b.ids["frame f"]); // one hop shorter
    QCOMPARE(b.groupOf(before, "blk")->verdict, RetentionVerdict::LocalVariable);
    const auto after = analyseRetention(b.c, b.g, {b.ids["frame f"]});
    QCOMPARE(retentionPath(b.g, after, b.ids["blk"]).front(), b.ids["module m"]);
    QCOMPARE(b.groupOf(after, "blk")->verdict, RetentionVerdict::ModuleGlobal);
    QCOMPARE(after.retained[b.ids["cache"]], uint64_t(8)); // now the only way: the cache dominates it
}

void TestRetention::hintsForUsualMistakes() {
    Builder b; // custom Function ctx: C++-held ctx -> .out -> tensor
    b.node("held from C/C++: LeakyBackward", RetentionNodeKind::RootExternal, "LeakyBackward");
    b.node("out", RetentionNodeKind::Tensor, "Tensor");
    b.block("blk", 4);
    b.edge("held from C/C++: LeakyBackward", "out", ".out", RetentionEdgeKind::Attr);
    b.edge("out", "blk", "storage", RetentionEdgeKind::Storage);
    // a list of outputs that keep their graphs: frame -> list -> [i] -> tensor -> grad_fn -> saved
    b.node("frame g", RetentionNodeKind::RootFrame, "frame"),
        b.node("outs", RetentionNodeKind::Object, "list");
    b.node("y", RetentionNodeKind::Tensor, "Tensor"),
        b.node("fn", RetentionNodeKind::Autograd, "MulBackward0");
    b.node("act", RetentionNodeKind::Tensor, "Tensor"), b.block("blk2", 16);
    b.edge("frame g", "outs", "local 'outs'", RetentionEdgeKind::Local), b.edge("outs", "y", "[0]");
    b.edge("y", "fn", ".grad_fn", RetentionEdgeKind::Autograd),
        b.edge("fn", "act", "._saved_self", RetentionEdgeKind::Saved);
    b.edge("act", "blk2", "storage", RetentionEdgeKind::Storage);
    const auto r = analyseRetention(b.c, b.g);
    QVERIFY(QString::fromStdString(b.groupOf(r, "blk")->hint).contains("save_for_backward"));
    QCOMPARE(b.groupOf(r, "blk")->verdict, RetentionVerdict::HeldFromCpp);
    QVERIFY(QString::fromStdString(b.groupOf(r, "blk2")->hint).contains("autograd graphs"));
    QCOMPARE(b.groupOf(r, "blk2")->verdict, RetentionVerdict::LocalVariable);
}

QTEST_GUILESS_MAIN(TestRetention)
#include "tst_retention.moc"
