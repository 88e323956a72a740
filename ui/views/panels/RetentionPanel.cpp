#include "views/panels/RetentionPanel.h"

#include "session/JobRunner.h"
#include "session/Session.h"

#include "analysis/CaptureAnalysis.h"
#include "models/DominatorTreeModel.h"
#include "models/RetentionGroupModel.h"
#include "util/Format.h"
#include "util/TimeOrigin.h"
#include "views/panels/RetentionGraphView.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace vs::ui {

namespace {
QString bytesText(uint64_t b) {
    return QString::fromStdString(humanBytes(static_cast<int64_t>(b)));
}
QString utf8Text(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}
const RetentionResult kNoResult;

// What the recorder said of the retention graphs it did not collect (skipped for its pause budget,
// failed): the reason a capture from the recorder has none.
QStringList graphsNotCollected(const std::vector<std::string>& warnings) {
    QStringList out;
    for (const auto& w : warnings)
        if (w.rfind("recorder: retention graph", 0) == 0 &&
            (w.find(" skipped") != std::string::npos || w.find(" failed") != std::string::npos))
            out << utf8Text(w).toHtmlEscaped();
    return out;
}
} // namespace

RetentionPanel::RetentionPanel(QWidget* parent) : QWidget(parent) {
    graphs_ = new QComboBox(this);
    graphs_->setToolTip(tr("Retention graphs the recorder collected (at exit, at an OOM, or on request)"));
    graphs_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    graphs_->setMinimumContentsLength(16); // long entries must not widen the window
    suspiciousOnly_ = new QCheckBox(tr("Suspicious holders only"), this);
    suspiciousOnly_->setToolTip(
        tr("Hide groups whose holders look intended (model parameters, optimizer state)"));
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("retentionSummary"));
    summary_->setWordWrap(true);
    path_ = new QLabel(this);
    path_->setWordWrap(true);
    path_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    hint_ = new QLabel(this);
    hint_->setWordWrap(true);
    groupsModel_ = new RetentionGroupModel(this);
    groupsFilter_ = new QSortFilterProxyModel(this);
    groupsFilter_->setSourceModel(groupsModel_);
    groupsFilter_->setFilterRole(RetentionGroupModel::SuspiciousRole);
    groupsFilter_->setSortRole(RetentionGroupModel::SortRole);
    groups_ = new QTreeView(this);
    groups_->setModel(groupsFilter_);
    groups_->setRootIsDecorated(false);
    groups_->setUniformRowHeights(true);
    groups_->setAlternatingRowColors(true);
    groups_->setSortingEnabled(true);
    groups_->sortByColumn(-1, Qt::AscendingOrder); // the analysis' order (largest first) until a header click
    dominatorsModel_ = new DominatorTreeModel(this);
    dominators_ = new QTreeView(this);
    dominators_->setModel(dominatorsModel_);
    dominators_->setUniformRowHeights(true);
    dominators_->setContextMenuPolicy(Qt::CustomContextMenu);
    dominators_->setToolTip(
        tr("Each holder with the GPU memory only it keeps alive; right-click to ignore one"));
    drawing_ = new RetentionGraphView(this);
    // at least five rows each, whatever the window's height (the tables are what is read first)
    const int fiveRows = 6 * (fontMetrics().height() + 4);
    groups_->setMinimumSize(80, fiveRows), dominators_->setMinimumSize(80, fiveRows);

    auto* top = new QHBoxLayout;
    top->addWidget(graphs_, 1);
    top->addWidget(suspiciousOnly_);
    auto* trees = new QSplitter(Qt::Horizontal, this);
    trees->addWidget(groups_);
    trees->addWidget(dominators_);
    auto* body = new QSplitter(Qt::Vertical, this);
    body->addWidget(trees);
    auto* drawingScroll = new QScrollArea(this); // a deep path scrolls: each layer keeps its label's room
    drawingScroll->setWidget(drawing_);
    drawingScroll->setWidgetResizable(true);
    drawingScroll->setFrameShape(QFrame::NoFrame);
    body->addWidget(drawingScroll);
    body->setStretchFactor(0, 3), body->setStretchFactor(1, 2); // the tables are read first
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(summary_);
    layout->addWidget(path_);
    layout->addWidget(hint_);
    layout->addWidget(body, 1);

    connect(graphs_, &QComboBox::currentIndexChanged, this, &RetentionPanel::selectGraph);
    connect(suspiciousOnly_, &QCheckBox::toggled, this, &RetentionPanel::fillGroups);
    connect(groups_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& i) {
                if (i.isValid()) showGroup(i.data(RetentionGroupModel::GroupRole).toInt());
            });
    connect(dominators_, &QTreeView::customContextMenuRequested, this, &RetentionPanel::dominatorMenu);
    setAnalysis(nullptr);
}

const RetentionGraph* RetentionPanel::graph() const {
    if (!analysis_ || graphIndex_ < 0 || size_t(graphIndex_) >= analysis_->capture().retention.size())
        return nullptr;
    return &analysis_->capture().retention[size_t(graphIndex_)];
}

int RetentionPanel::graphCount() const {
    return analysis_ ? int(analysis_->capture().retention.size()) : 0;
}

void RetentionPanel::follow(Session* session) {
    jobs_ = &session->jobs();
    // a block picked in the block map: what keeps it alive, if a graph has it
    connect(session, &Session::blockSelected, this, [this, session](uint32_t allocEvent) {
        selectBlockAddress(session->analysis()->trace(session->device()).addr[allocEvent]);
    });
    // a holder chosen here: the block map at the graph's moment, where those blocks are alive
    connect(this, &RetentionPanel::blocksChosen, session,
            [session](int device, qint64 timeUs, const QVector<quint64>& addresses) {
                const DeviceTrace& t = session->analysis()->trace(session->device());
                if (t.device != device) return;
                session->setMoment(
                    size_t(std::upper_bound(t.timeUs.begin(), t.timeUs.end(), timeUs) - t.timeUs.begin()));
                session->markAddresses({addresses.begin(), addresses.end()});
            });
    connect(session, &Session::opened, this, [this, session] { setAnalysis(session->analysis()); });
    connect(session, &Session::extended, this, [this, session] {
        if (session->analysis()->capture().retention.size() != size_t(graphCount()))
            setAnalysis(session->analysis());
        else
            analysis_ = session->analysis();
    });
}

void RetentionPanel::setAnalysis(AnalysisPtr analysis) {
    analysis_ = std::move(analysis);
    const QSignalBlocker block(graphs_);
    graphs_->clear();
    const int n = graphCount();
    const int64_t origin = analysis_ ? analysis_->originUs() : 0; // the one origin of every view
    for (int i = 0; i < n; ++i) {
        const auto& g = analysis_->capture().retention[size_t(i)];
        graphs_->addItem(tr("%1 \u2014 device %2 \u2014 %3 s \u2014 %L4 objects scanned in %5 s%6")
                             .arg(utf8Text(analysis_->capture().strings.text(g.trigger)))
                             .arg(g.device)
                             .arg(secondsSince(origin, g.timeUs), 0, 'f', 3)
                             .arg(g.objectsScanned)
                             .arg(g.millis / 1000.0, 0, 'f', 1)
                             .arg(g.truncated ? tr(" (truncated)") : QString()));
    }
    graphs_->setEnabled(n > 0);
    graphIndex_ = -1;
    if (n == 0) {
        result_.reset();
        groupsModel_->setResult(nullptr), dominatorsModel_->clear();
        drawing_->setPaths(nullptr, nullptr, nullptr, {});
        const QStringList why = analysis_ ? graphsNotCollected(analysis_->capture().warnings) : QStringList();
        summary_->setText(
            why.isEmpty()
                ? tr("No retention graph in this capture. Record with the vramscope agent "
                     "(<code>python -m vramscope record</code>): it collects one at exit and at an OOM, "
                     "and <code>vramscope.collect_retention()</code> collects one on request.")
                : tr("No retention graph in this capture: the recorder did not collect one.<br>%1<br>"
                     "Recording with <code>VRAMSCOPE_PAUSE_BUDGET=none</code> always collects the one at "
                     "exit (the program then pauses as long as the walk takes).")
                      .arg(why.join(QStringLiteral("<br>"))));
        path_->clear(), hint_->clear();
        return;
    }
    // Open on the graph with the most suspicious memory (the newest among equals): every graph is
    // analysed for that, off the GUI thread (a graph of 10^5 objects takes a while).
    summary_->setText(tr("Analysing %n retention graph(s)\u2026", nullptr, n));
    const AnalysisPtr a = analysis_;
    jobs_->run<int>(
        JobKey::RetentionPick, this,
        [a, n](const JobControl& job) {
            int best = n - 1;
            uint64_t bestBytes = 0;
            for (int i = 0; i < n && !job.cancelled(); ++i) {
                uint64_t bytes = 0;
                for (const auto& grp :
                     analyseRetention(a->capture(), a->capture().retention[size_t(i)]).groups)
                    bytes += grp.suspicious ? grp.bytes : 0;
                if (bytes > bestBytes || (bytes == bestBytes && i > best)) best = i, bestBytes = bytes;
            }
            return best;
        },
        [this](const int& best) {
            const QSignalBlocker keep(graphs_);
            graphs_->setCurrentIndex(best);
            selectGraph(best);
        });
}

void RetentionPanel::selectGraph(int index) {
    if (index < 0 || index >= graphCount()) return;
    graphIndex_ = index;
    ignored_.clear();
    recompute();
}

void RetentionPanel::recompute() {
    const RetentionGraph* g = graph();
    if (!g) return;
    const AnalysisPtr a = analysis_;
    const auto ignored = ignored_;
    jobs_->cancel(JobKey::RetentionPick); // a graph is chosen: the pick must not replace it
    jobs_->run<RetentionResult>(
        JobKey::RetentionGraph, this,
        [a, g, ignored](const JobControl&) { return analyseRetention(a->capture(), *g, ignored); },
        [this](const RetentionResult& r) { showResult(r); });
}

void RetentionPanel::showResult(const RetentionResult& r) {
    result_ = std::make_shared<const RetentionResult>(r);
    size_t suspicious = 0;
    for (const auto& grp : result_->groups) suspicious += grp.suspicious;
    summary_->setText(tr("<b>%1</b> of allocated blocks in %L2 groups, %L3 suspicious%4")
                          .arg(bytesText(result_->totalBytes))
                          .arg(result_->groups.size())
                          .arg(suspicious)
                          .arg(ignored_.empty()
                                   ? QString()
                                   : tr(" \u2014 %n retainer(s) ignored", nullptr, int(ignored_.size()))));
    groupsModel_->setResult(result_);
    fillGroups();
    fillDominators();
}

const RetentionResult& RetentionPanel::result() const {
    return result_ ? *result_ : kNoResult;
}

void RetentionPanel::fillGroups() {
    groupsFilter_->setFilterFixedString(suspiciousOnly_->isChecked() ? QStringLiteral("1") : QString());
    groups_->header()->resizeSections(QHeaderView::ResizeToContents);
    if (!groupsFilter_->rowCount()) return showGroup(-1);
    // Open on the largest suspicious group: allocator workspaces are often larger and say nothing.
    int first = 0;
    for (int i = 0; i < groupsFilter_->rowCount(); ++i)
        if (groupsFilter_->index(i, 0).data(RetentionGroupModel::SuspiciousRole).toString() ==
            QLatin1String("1")) {
            first = i;
            break;
        }
    userChoice_ = false;
    groups_->setCurrentIndex(groupsFilter_->index(first, 0));
    userChoice_ = true;
}

bool RetentionPanel::selectBlockAddress(uint64_t address) {
    const RetentionGraph* g = graph();
    if (!g || !result_) return false;
    for (int i = 0; i < groupsFilter_->rowCount(); ++i) {
        const QModelIndex row = groupsFilter_->index(i, 0);
        for (uint32_t b : result_->groups[size_t(row.data(RetentionGroupModel::GroupRole).toInt())].blocks)
            if (g->nodes[b].address == address) {
                userChoice_ = false;
                groups_->setCurrentIndex(row);
                userChoice_ = true;
                return true;
            }
    }
    return false;
}

void RetentionPanel::fillDominators() {
    dominatorsModel_->setResult(analysis_, graph(), result_);
    dominators_->expandToDepth(1);
    dominators_->header()->resizeSections(QHeaderView::ResizeToContents);
}

void RetentionPanel::selectGroup(int row) {
    if (row >= 0 && row < groupsFilter_->rowCount()) groups_->setCurrentIndex(groupsFilter_->index(row, 0));
}

void RetentionPanel::showGroup(int group) {
    const RetentionGraph* g = graph();
    if (!g || !result_ || group < 0 || size_t(group) >= result_->groups.size()) {
        path_->clear(), hint_->clear();
        drawing_->setPaths(nullptr, nullptr, nullptr, {});
        return;
    }
    const auto& grp = result_->groups[size_t(group)];
    const auto& c = analysis_->capture();
    path_->setText(tr("<b>Shortest path:</b> %1")
                       .arg(QString::fromStdString(retentionPathText(c, *g, *result_, grp.blocks.front()))
                                .toHtmlEscaped()));
    hint_->setText(grp.hint.empty()
                       ? QString()
                       : tr("<b>Hint:</b> %1").arg(QString::fromStdString(grp.hint).toHtmlEscaped()));
    drawing_->setPaths(&c, g, result_.get(), grp.blocks);
    if (!userChoice_) return;
    QVector<quint64> addresses;
    for (uint32_t b : grp.blocks) addresses.push_back(g->nodes[b].address);
    emit blocksChosen(g->device, g->timeUs, addresses);
}

QString RetentionPanel::pathText() const {
    return path_->text();
}
QString RetentionPanel::hintText() const {
    return hint_->text();
}

void RetentionPanel::ignoreNode(uint32_t node) {
    ignored_.push_back(node);
    recompute();
}

void RetentionPanel::clearIgnored() {
    ignored_.clear();
    recompute();
}

void RetentionPanel::dominatorMenu(const QPoint& pos) {
    const QVariant at = dominators_->indexAt(pos).data(DominatorTreeModel::NodeRole);
    QMenu menu(this);
    if (at.isValid()) {
        const uint32_t node = at.toUInt();
        if (graph() && node < graph()->nodes.size())
            menu.addAction(tr("Ignore This Retainer"), this, [this, node] { ignoreNode(node); });
    }
    if (!ignored_.empty())
        menu.addAction(tr("Show All Retainers Again"), this, &RetentionPanel::clearIgnored);
    if (!menu.isEmpty()) menu.exec(dominators_->viewport()->mapToGlobal(pos));
}

} // namespace vs::ui
