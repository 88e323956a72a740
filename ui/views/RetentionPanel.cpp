#include "views/RetentionPanel.h"

#include "session/JobRunner.h"
#include "session/Session.h"

#include "views/RetentionGraphView.h"
#include "analysis/CaptureAnalysis.h"
#include "util/Format.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace vs::ui {

namespace {
QString bytesText(uint64_t b) {
    return QString::fromStdString(humanBytes(static_cast<int64_t>(b)));
}
QString text(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}
constexpr int kNodeRole = Qt::UserRole + 1;
constexpr int kGroupRole = Qt::UserRole + 2;
constexpr int kMaxDominatorChildren = 200; // a fan-out beyond this is folded into "+N more"
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
    summary_->setWordWrap(true);
    path_ = new QLabel(this);
    path_->setWordWrap(true);
    path_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    hint_ = new QLabel(this);
    hint_->setWordWrap(true);
    groups_ = new QTreeWidget(this);
    groups_->setHeaderLabels({tr("GPU bytes"), tr("Blocks"), tr("Held by"), tr("Path signature")});
    groups_->setRootIsDecorated(false);
    groups_->setAlternatingRowColors(true);
    dominators_ = new QTreeWidget(this);
    dominators_->setHeaderLabels({tr("Holder (dominator tree)"), tr("Retained GPU bytes")});
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
    body->addWidget(drawing_);
    body->setStretchFactor(0, 1), body->setStretchFactor(1, 1); // the drawing no longer takes it all
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(summary_);
    layout->addWidget(path_);
    layout->addWidget(hint_);
    layout->addWidget(body, 1);

    connect(graphs_, &QComboBox::currentIndexChanged, this, &RetentionPanel::selectGraph);
    connect(suspiciousOnly_, &QCheckBox::toggled, this, &RetentionPanel::fillGroups);
    connect(groups_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item) showGroup(item->data(0, kGroupRole).toInt());
    });
    connect(dominators_, &QTreeWidget::customContextMenuRequested, this, &RetentionPanel::dominatorMenu);
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
    connect(session, &Session::opened, this, [this, session] { setAnalysis(session->analysis()); });
    connect(session, &Session::extended, this, [this, session] {
        if (session->analysis()->capture().retention.size() != size_t(graphCount())) setAnalysis(session->analysis());
        else analysis_ = session->analysis();
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
                             .arg(text(analysis_->capture().strings.text(g.trigger)))
                             .arg(g.device)
                             .arg(double(g.timeUs - origin) / 1e6, 0, 'f', 3)
                             .arg(g.objectsScanned)
                             .arg(g.millis / 1000.0, 0, 'f', 1)
                             .arg(g.truncated ? tr(" (truncated)") : QString()));
    }
    graphs_->setEnabled(n > 0);
    graphIndex_ = -1;
    if (n == 0) {
        result_ = {};
        groups_->clear(), dominators_->clear();
        drawing_->setPaths(nullptr, nullptr, nullptr, {});
        summary_->setText(
            tr("No retention graph in this capture. Record with the vramscope agent "
               "(<code>python -m vramscope record</code>): it collects one at exit and at an OOM, "
               "and <code>vramscope.collect_retention()</code> collects one on request."));
        path_->clear(), hint_->clear();
        return;
    }
    // Open on the graph with the most suspicious memory (the newest among equals): every graph is
    // analysed for that, off the GUI thread (a graph of 10^5 objects takes a while).
    summary_->setText(tr("Analysing %n retention graph(s)\u2026", nullptr, n));
    const AnalysisPtr a = analysis_;
    jobs_->run<int>(
        QStringLiteral("retention"),
        [a, n](const std::atomic<bool>& cancel) {
            int best = n - 1;
            uint64_t bestBytes = 0;
            for (int i = 0; i < n && !cancel; ++i) {
                uint64_t bytes = 0;
                for (const auto& grp : analyseRetention(a->capture(), a->capture().retention[size_t(i)]).groups)
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
    jobs_->run<RetentionResult>(
        QStringLiteral("retention"),
        [a, g, ignored](const std::atomic<bool>&) { return analyseRetention(a->capture(), *g, ignored); },
        [this](const RetentionResult& r) { showResult(r); });
}

void RetentionPanel::showResult(const RetentionResult& r) {
    result_ = r;
    size_t suspicious = 0;
    for (const auto& grp : result_.groups) suspicious += grp.suspicious;
    summary_->setText(tr("<b>%1</b> of allocated blocks in %L2 groups, %L3 suspicious%4")
                          .arg(bytesText(result_.totalBytes))
                          .arg(result_.groups.size())
                          .arg(suspicious)
                          .arg(ignored_.empty()
                                   ? QString()
                                   : tr(" \u2014 %n retainer(s) ignored", nullptr, int(ignored_.size()))));
    fillGroups();
    fillDominators();
}

void RetentionPanel::fillGroups() {
    groups_->clear();
    for (size_t k = 0; k < result_.groups.size(); ++k) {
        const auto& grp = result_.groups[k];
        if (suspiciousOnly_->isChecked() && !grp.suspicious) continue;
        auto* item = new QTreeWidgetItem(groups_, {bytesText(grp.bytes), QString::number(grp.blocks.size()),
                                                   text(retentionVerdictShort(grp.verdict)),
                                                   QString::fromStdString(grp.signature)});
        item->setData(0, kGroupRole, int(k));
        item->setTextAlignment(0, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setToolTip(2, text(retentionVerdictText(grp.verdict)));
        item->setToolTip(3, QString::fromStdString(grp.signature));
        if (grp.suspicious) {
            QFont f = item->font(0);
            f.setBold(true);
            for (int c = 0; c < 4; ++c) item->setFont(c, f);
        }
    }
    groups_->header()->resizeSections(QHeaderView::ResizeToContents);
    if (!groups_->topLevelItemCount()) return showGroup(-1);
    // Open on the largest suspicious group: allocator workspaces are often larger and say nothing.
    QTreeWidgetItem* first = groups_->topLevelItem(0);
    for (int i = 0; i < groups_->topLevelItemCount(); ++i)
        if (result_.groups[size_t(groups_->topLevelItem(i)->data(0, kGroupRole).toInt())].suspicious) {
            first = groups_->topLevelItem(i);
            break;
        }
    userChoice_ = false;
    groups_->setCurrentItem(first);
    userChoice_ = true;
}

bool RetentionPanel::selectBlockAddress(uint64_t address) {
    const RetentionGraph* g = graph();
    if (!g) return false;
    for (int i = 0; i < groups_->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = groups_->topLevelItem(i);
        for (uint32_t b : result_.groups[size_t(item->data(0, kGroupRole).toInt())].blocks)
            if (g->nodes[b].address == address) {
                userChoice_ = false;
                groups_->setCurrentItem(item);
                userChoice_ = true;
                return true;
            }
    }
    return false;
}

void RetentionPanel::fillDominators() {
    dominators_->clear();
    const RetentionGraph* g = graph();
    if (!g) return;
    const uint32_t total = uint32_t(g->nodes.size()) + 2;
    std::vector<std::vector<uint32_t>> children(total);
    for (uint32_t v = 0; v < total; ++v)
        if (v != result_.superRoot && result_.idom.size() > v && result_.idom[v] != RetentionResult::kNone)
            children[result_.idom[v]].push_back(v);
    const auto& c = analysis_->capture();
    // Depth-first, largest retained first; only nodes that keep some GPU memory alive.
    std::vector<std::pair<uint32_t, QTreeWidgetItem*>> stack{{result_.superRoot, nullptr}};
    while (!stack.empty()) {
        auto [v, parentItem] = stack.back();
        stack.pop_back();
        auto& kids = children[v];
        std::sort(kids.begin(), kids.end(),
                  [&](uint32_t a, uint32_t b) { return result_.retained[a] > result_.retained[b]; });
        int shown = 0;
        for (uint32_t k : kids) {
            if (result_.retained[k] == 0) continue;
            if (++shown > kMaxDominatorChildren) {
                auto* more = parentItem ? new QTreeWidgetItem(parentItem) : new QTreeWidgetItem(dominators_);
                more->setText(0, tr("+%L1 more").arg(kids.size() - kMaxDominatorChildren));
                break;
            }
            auto* item = parentItem ? new QTreeWidgetItem(parentItem) : new QTreeWidgetItem(dominators_);
            item->setText(0, QString::fromStdString(retentionNodeText(c, *g, k)));
            item->setText(1, bytesText(result_.retained[k]));
            item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
            item->setData(0, kNodeRole, k);
            stack.emplace_back(k, item);
        }
    }
    dominators_->expandToDepth(1);
    dominators_->header()->resizeSections(QHeaderView::ResizeToContents);
}

void RetentionPanel::selectGroup(int row) {
    if (row >= 0 && row < groups_->topLevelItemCount()) groups_->setCurrentItem(groups_->topLevelItem(row));
}

void RetentionPanel::showGroup(int group) {
    const RetentionGraph* g = graph();
    if (!g || group < 0 || size_t(group) >= result_.groups.size()) {
        path_->clear(), hint_->clear();
        drawing_->setPaths(nullptr, nullptr, nullptr, {});
        return;
    }
    const auto& grp = result_.groups[size_t(group)];
    const auto& c = analysis_->capture();
    path_->setText(tr("<b>Shortest path:</b> %1")
                       .arg(QString::fromStdString(retentionPathText(c, *g, result_, grp.blocks.front()))
                                .toHtmlEscaped()));
    hint_->setText(grp.hint.empty()
                       ? QString()
                       : tr("<b>Hint:</b> %1").arg(QString::fromStdString(grp.hint).toHtmlEscaped()));
    drawing_->setPaths(&c, g, &result_, grp.blocks);
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
    QTreeWidgetItem* item = dominators_->itemAt(pos);
    QMenu menu(this);
    if (item && item->data(0, kNodeRole).isValid()) {
        const uint32_t node = item->data(0, kNodeRole).toUInt();
        if (graph() && node < graph()->nodes.size())
            menu.addAction(tr("Ignore This Retainer"), this, [this, node] { ignoreNode(node); });
    }
    if (!ignored_.empty())
        menu.addAction(tr("Show All Retainers Again"), this, &RetentionPanel::clearIgnored);
    if (!menu.isEmpty()) menu.exec(dominators_->viewport()->mapToGlobal(pos));
}

} // namespace vs::ui
