// The tree models (call tree, dominator tree, call-path diff, survivor groups) share one
// index/parent/rowCount (ui/models/TreeModel). Qt's QAbstractItemModelTester walks each over real
// results and fails on any inconsistency between them (a child's parent not its parent, a row that
// is not its place, counts that disagree); each test also reads one thing the tree must contain.
#include "TestData.h"

#include "analysis/growth/LeakDiagnosis.h"
#include "analysis/retention/Retention.h"
#include "compare/DiffTree.h"
#include "models/CallTreeModel.h"
#include "models/DiffTreeModel.h"
#include "models/DominatorTreeModel.h"
#include "models/SurvivorGroupModel.h"
#include "session/CaptureLoader.h"

#include <QAbstractItemModelTester>
#include <QtTest>

using namespace vs;

class TestTreeModels : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void callTree();
    void survivorGroups();
    void dominatorTree();
    void diffTree();

  private:
    ui::AnalysisPtr leak_;
    LeakReport report_;
};

namespace {

void walk(QAbstractItemModel* m) {
    QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
}

// Every index below `parent`, depth first: each child's parent() is `parent`, at its own row.
int countNodes(const QAbstractItemModel& m, const QModelIndex& parent = {}) {
    int n = 0;
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex child = m.index(r, 0, parent);
        if (child.parent() != parent || child.row() != r) return -1;
        const int below = countNodes(m, child);
        if (below < 0) return -1;
        n += 1 + below;
    }
    return n;
}

} // namespace

void TestTreeModels::initTestCase() {
    const QString path = vs::test::samplesDir() + "/../recorded/leak_eval_no_grad.vscap";
    leak_ = ui::CaptureLoader::openNow(path);
    QVERIFY(leak_);
    report_ = diagnoseLeaks(*leak_, 0);
    QVERIFY(!report_.groups.empty());
}

void TestTreeModels::callTree() {
    ui::CallTreeModel m;
    QCOMPARE(m.rowCount(), 0); // no tree yet
    CallTree tree = CallTree::build(leak_->capture(), report_.groups, CallTree::Direction::TopDown, true);
    const int nodes = int(tree.size()) - 1;                 // all but the invisible root
    m.setTree(nullptr, &leak_->capture(), std::move(tree)); // leak_ keeps the capture alive
    walk(&m);
    QVERIFY(nodes > 3);
    QCOMPARE(countNodes(m), nodes);
}

void TestTreeModels::survivorGroups() {
    ui::SurvivorGroupModel m;
    m.setGroups(leak_, report_.groups, false);
    walk(&m);
    QCOMPARE(m.rowCount(), int(std::min<size_t>(report_.groups.size(), ui::SurvivorGroupModel::kMaxGroups)));
    const QModelIndex group = m.index(0, 0);
    QVERIFY(m.rowCount(group) > 0); // its stack's frames
    const QModelIndex frame = m.index(m.rowCount(group) - 1, ui::SurvivorGroupModel::Site, group);
    QCOMPARE(ui::SurvivorGroupModel::groupRow(frame), 0);
    QCOMPARE(frame.parent(), group);
    QCOMPARE(m.rowCount(frame), 0); // frames are leaves
}

void TestTreeModels::dominatorTree() {
    const Capture& c = leak_->capture();
    QVERIFY(!c.retention.empty());
    auto result = std::make_shared<const RetentionResult>(analyseRetention(c, c.retention.front()));
    ui::DominatorTreeModel m;
    m.setResult(leak_, &c.retention.front(), result);
    walk(&m);
    QVERIFY(countNodes(m) > 1);
    const QModelIndex top = m.index(0, ui::DominatorTreeModel::Retained);
    QVERIFY(!top.data().toString().isEmpty()); // the holder that retains the most, first
    m.clear();
    QCOMPARE(m.rowCount(), 0);
}

void TestTreeModels::diffTree() {
    DiffRow grown;
    grown.frames = {"train (a.py:1)", "step (a.py:5)", "cache (a.py:9)"};
    grown.liveA = 1 << 20, grown.liveB = 5 << 20;
    DiffRow shrunk;
    shrunk.frames = {"train (a.py:1)", "eval (a.py:7)"};
    shrunk.liveA = 3 << 20, shrunk.liveB = 1 << 20;
    ui::DiffTreeModel m;
    m.setTree(DiffTree::build({grown, shrunk}, true));
    walk(&m);
    QCOMPARE(m.rowCount(), 1); // train
    const QModelIndex train = m.index(0, 0);
    QCOMPARE(m.rowCount(train), 2); // step and eval
    QCOMPARE(countNodes(m), 4);
}

QTEST_MAIN(TestTreeModels)
#include "tst_tree_models.moc"
