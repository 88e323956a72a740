#include "views/compare/CompareView.h"

#include "common/ByteAxisTicker.h"
#include "common/TimelineColours.h"
#include "compare/DiffTree.h"
#include "models/DiffTableModel.h"
#include "models/DiffTreeModel.h"
#include "util/TimeOrigin.h"
#include "views/compare/DiffFlameGraph.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>

namespace vs::ui {
namespace {

// The events of the longest device inside a range of seconds from the capture's origin.
DiffSide sideOf(const CaptureAnalysis& a, const CompareView::Range& r) {
    DiffSide s = wholeDevice(a, longestDevice(a));
    if (!r || a.deviceCount() == 0) return s;
    const auto& t = a.trace(s.device).timeUs;
    const auto us = [&](double sec) { return microsecondsAt(a.originUs(), sec); };
    s.first = uint32_t(std::lower_bound(t.begin(), t.end(), us(r->first)) - t.begin());
    const auto past = uint32_t(std::upper_bound(t.begin(), t.end(), us(r->second)) - t.begin());
    s.last = past > 0 ? past - 1 : 0;
    return s;
}

QString rangeText(const CompareView::Range& r) {
    return r ? QStringLiteral(" [%1 s \u2013 %2 s]").arg(r->first, 0, 'f', 2).arg(r->second, 0, 'f', 2)
             : QString();
}

} // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent, Qt::Window) {
    setWindowTitle(tr("Compare \u2014 vramscope"));
    resize(1200, 860);
    header_ = new QLabel(tr("Loading\u2026"), this);
    header_->setWordWrap(true);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    verdict_ = new QLabel(this);
    verdict_->setWordWrap(true);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = verdict_->font();
    bold.setBold(true);
    verdict_->setFont(bold);

    curves_ = new QCustomPlot(this);
    curves_->setMinimumHeight(220);
    curves_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new ByteAxisTicker));
    curves_->xAxis->setLabel(tr("iteration (aligned)"));
    curves_->legend->setVisible(true);
    curves_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    curves_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    curves_->axisRect()->setRangeZoom(Qt::Horizontal);
    curves_->axisRect()->setRangeDrag(Qt::Horizontal);

    sites_ = new DiffTableModel(this);
    stacks_ = new DiffTableModel(this);
    tree_ = new DiffTreeModel(this);
    flame_ = new DiffFlameGraph(this);
    auto* treeView = new QTreeView(this);
    treeView->setModel(tree_);
    treeView->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    treeView->header()->setStretchLastSection(false);
    treeMeasure_ = new QComboBox(this);
    treeMeasure_->addItems({tr("Alive at the end"), tr("Alive at the peak")});
    connect(treeMeasure_, &QComboBox::currentIndexChanged, this, &CompareView::showTree);

    tabs_ = new QTabWidget(this);
    tabs_->addTab(table(sites_), tr("Sites"));
    tabs_->addTab(table(stacks_), tr("Stacks"));
    tabs_->addTab(treeView, tr("Tree"));
    tabs_->addTab(flame_, tr("Flame graph"));
    tabs_->setCornerWidget(treeMeasure_);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(curves_);
    split->addWidget(tabs_);
    split->setStretchFactor(1, 2);
    auto* box = new QVBoxLayout(this);
    box->addWidget(header_);
    box->addWidget(verdict_);
    box->addWidget(split, 1);

    connect(&loader_, &CaptureLoader::loaded, this, [this](const QString& path, AnalysisPtr b) {
        other_.open(path, b);
        start(a_, rangeA_, b, rangeB_);
    });
    connect(&loader_, &CaptureLoader::failed, this, [this](const QString& path, const QString& message) {
        showError(tr("Could not open %1: %2").arg(QFileInfo(path).fileName(), message));
    });
    connect(&loader_, &CaptureLoader::progress, this, [this](int pct) {
        header_->setText(tr("Loading %1\u2026 %2 %").arg(QFileInfo(pathB_).fileName()).arg(pct));
    });
}

namespace {
// Comparing starts from the capture open in the window.
bool haveCapture(QWidget* parent, const AnalysisPtr& a) {
    if (!a)
        QMessageBox::information(parent, CompareView::tr("Compare"),
                                 CompareView::tr("Open a capture first: it is A, the one compared with."));
    return a != nullptr;
}
} // namespace

CompareView* CompareView::askAndCompare(QWidget* parent, AnalysisPtr a, const QString& pathA) {
    if (!haveCapture(parent, a)) return nullptr;
    const QString dir = QSettings().value(QStringLiteral("lastDir")).toString();
    const QString pathB = QFileDialog::getOpenFileName(
        parent, tr("Compare %1 with").arg(QFileInfo(pathA).fileName()), dir,
        tr("Captures (*.vscap *.pickle *.pickle.gz *.pickle.zst *.pkl);;All files (*)"));
    if (pathB.isEmpty()) return nullptr;
    auto* v = new CompareView(parent);
    v->setAttribute(Qt::WA_DeleteOnClose);
    v->compareWith(std::move(a), pathA, pathB);
    v->QWidget::show();
    return v;
}

CompareView* CompareView::askRanges(QWidget* parent, AnalysisPtr a, const QString& path, Range selected) {
    if (!haveCapture(parent, a)) return nullptr;
    // A: the selection, B: as long again right after it; without a selection the two halves
    const auto& t = a->trace(longestDevice(*a)).timeUs;
    const double span = t.empty() ? 0 : a->secondsOf(t.back());
    const double from = selected ? selected->first : 0, to = selected ? selected->second : span / 2;
    const QString suggestion = QStringLiteral("%1:%2 %3:%4").arg(from).arg(to).arg(to).arg(to + (to - from));
    bool ok = false;
    const QString text = QInputDialog::getText(parent, tr("Compare two ranges"),
                                               tr("Ranges A and B in seconds (FROM:TO FROM:TO):"),
                                               QLineEdit::Normal, suggestion, &ok);
    if (!ok) return nullptr;
    static const QRegularExpression form(
        QStringLiteral("^\\s*([0-9.]+)\\s*:\\s*([0-9.]+)\\s+([0-9.]+)\\s*:\\s*([0-9.]+)\\s*$"));
    const auto m = form.match(text);
    if (!m.hasMatch() || m.captured(1).toDouble() > m.captured(2).toDouble() ||
        m.captured(3).toDouble() > m.captured(4).toDouble()) {
        QMessageBox::warning(
            parent, tr("Compare two ranges"),
            tr("'%1' is not two ranges FROM:TO FROM:TO in seconds, FROM before TO.").arg(text));
        return nullptr;
    }
    auto* v = new CompareView(parent);
    v->setAttribute(Qt::WA_DeleteOnClose);
    v->compareRanges(std::move(a), path, {m.captured(1).toDouble(), m.captured(2).toDouble()},
                     {m.captured(3).toDouble(), m.captured(4).toDouble()});
    v->QWidget::show();
    return v;
}

QTableView* CompareView::table(DiffTableModel* model) {
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(model);
    proxy->setSortRole(DiffTableModel::kSortRole);
    auto* v = new QTableView(this);
    v->setModel(proxy);
    v->setSortingEnabled(true);
    v->sortByColumn(-1, Qt::AscendingOrder); // the model's order: largest difference first
    v->setSelectionBehavior(QAbstractItemView::SelectRows);
    v->verticalHeader()->hide();
    v->horizontalHeader()->setSectionResizeMode(DiffTableModel::Site, QHeaderView::Stretch);
    return v;
}

void CompareView::compareWith(AnalysisPtr a, const QString& pathA, const QString& pathB) {
    a_ = std::move(a), pathA_ = pathA, pathB_ = pathB, rangeA_.reset(), rangeB_.reset();
    setWindowTitle(tr("Compare %1 with %2 \u2014 vramscope")
                       .arg(QFileInfo(pathA).fileName(), QFileInfo(pathB).fileName()));
    header_->setText(tr("Loading %1\u2026").arg(QFileInfo(pathB).fileName()));
    loader_.open(pathB);
}

void CompareView::compareRanges(AnalysisPtr a, const QString& path, std::pair<double, double> rangeA,
                                std::pair<double, double> rangeB) {
    a_ = a, pathA_ = pathB_ = path, rangeA_ = rangeA, rangeB_ = rangeB;
    setWindowTitle(tr("Compare two ranges of %1 \u2014 vramscope").arg(QFileInfo(path).fileName()));
    other_.open(path, a);
    start(a, rangeA_, a, rangeB_);
}

void CompareView::start(AnalysisPtr a, Range ra, AnalysisPtr b, Range rb) {
    b_ = b;
    header_->setText(tr("Comparing\u2026"));
    other_.jobs().run<std::shared_ptr<const CaptureDiff>>(
        JobKey::Compare, this,
        [a, ra, b, rb](const JobControl& job) {
            return std::make_shared<const CaptureDiff>(
                compareCaptures(sideOf(*a, ra), sideOf(*b, rb), &job.cancel()));
        },
        [this](const std::shared_ptr<const CaptureDiff>& d) { showDiff(d); });
}

bool CompareView::busy() const {
    return loader_.busy() || const_cast<Session&>(other_).jobs().busy();
}

void CompareView::waitForJobs() {
    while (loader_.busy()) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QCoreApplication::processEvents();
    other_.jobs().waitForAll();
}

QString CompareView::headerText() const {
    return header_->text();
}

void CompareView::showError(const QString& message) {
    error_ = message;
    header_->setText(QStringLiteral("<span style='color:#c8322a'>%1</span>").arg(message.toHtmlEscaped()));
    emit failed(message);
}

void CompareView::showDiff(std::shared_ptr<const CaptureDiff> d) {
    diff_ = std::move(d);
    QString h = tr("<b>A</b>: %1%2 &nbsp; <b>B</b>: %3%4")
                    .arg(QFileInfo(pathA_).fileName().toHtmlEscaped(), rangeText(rangeA_),
                         QFileInfo(pathB_).fileName().toHtmlEscaped(), rangeText(rangeB_));
    if (!diff_->context.empty()) {
        h += tr("<br><b>The setting differs</b>:");
        for (const auto& c : diff_->context)
            h += QStringLiteral("<br>&nbsp;&nbsp;%1: %2 \u2192 %3")
                     .arg(QString::fromStdString(c.what).toHtmlEscaped(),
                          QString::fromStdString(c.a).toHtmlEscaped(),
                          QString::fromStdString(c.b).toHtmlEscaped());
    }
    header_->setText(h);
    verdict_->setText(
        QString::fromStdString(diff_->verdict) +
        (diff_->iterations.pairs.empty()
             ? tr(" No per-iteration curves: %1.").arg(QString::fromStdString(diff_->iterations.how))
             : QString()));
    sites_->setRows(diff_, diff_->sites);
    stacks_->setRows(diff_, diff_->stacks);
    plotIterations(diff_->iterations);
    showTree();
    emit compared();
}

void CompareView::showTree() {
    if (!diff_) return;
    const bool live = treeMeasure_->currentIndex() == 0;
    tree_->setTree(DiffTree::build(diff_->stacks, live));
    flame_->setTree(DiffTree::build(diff_->stacks, live));
}

void CompareView::plotIterations(const IterationAlignment& al) {
    curves_->clearGraphs();
    const TimelineColours c = TimelineColours::forPalette(palette());
    QVector<double> x, peakA, peakB, liveA, liveB;
    for (size_t k = 0; k < al.pairs.size(); ++k) {
        const auto [i, m] = al.pairs[k];
        x << double(al.byNumber ? al.a.numbers[i] : int64_t(k + 1));
        peakA << double(al.a.peak[i]), peakB << double(al.b.peak[m]);
        liveA << double(al.a.live[i]), liveB << double(al.b.live[m]);
    }
    const auto add = [&](const QVector<double>& y, QColor colour, Qt::PenStyle style, const QString& name) {
        QCPGraph* g = curves_->addGraph();
        g->setData(x, y, true);
        g->setPen(QPen(colour, 2, style));
        g->setName(name);
        g->setLineStyle(QCPGraph::lsStepCenter);
    };
    add(peakA, c.allocated, Qt::SolidLine, tr("A: peak per iteration"));
    add(peakB, c.reserved, Qt::SolidLine, tr("B: peak per iteration"));
    add(liveA, c.allocated, Qt::DashLine, tr("A: allocated at iteration end"));
    add(liveB, c.reserved, Qt::DashLine, tr("B: allocated at iteration end"));
    curves_->setVisible(!al.pairs.empty()); // the verdict says why there is no curve
    curves_->xAxis->setLabel(al.pairs.empty()
                                 ? tr("no iterations to align: %1").arg(QString::fromStdString(al.how))
                                 : tr("iteration, aligned %1").arg(QString::fromStdString(al.how)));
    curves_->rescaleAxes();
    curves_->yAxis->setRangeLower(0);
    curves_->yAxis->setRangeUpper(curves_->yAxis->range().upper * 1.08);
    curves_->replot();
}

} // namespace vs::ui
