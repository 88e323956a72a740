#include "views/timeline/CompositionView.h"

#include "views/panels/BlockMapView.h"

#include "analysis/CaptureAnalysis.h"
#include "analysis/categories/PhaseWindows.h"
#include "common/ByteAxisTicker.h"
#include "common/CategoryColours.h"
#include "session/Session.h"
#include "util/Cancelled.h"
#include "util/TimeOrigin.h"

#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>

namespace vs::ui {

namespace {

// Bottom to top: what lasts (parameters, optimizer state) under what comes and goes.
constexpr Category kOrder[] = {Category::Parameter, Category::OptimizerState, Category::Gradient,
                               Category::Input,     Category::Activation,     Category::Temporary,
                               Category::Unknown};
constexpr const char* kOutsideColours[] = {"#b07aa1", "#ff9da7", "#9c755f", "#8c564b", "#c49c94", "#7f3c8d"};
constexpr size_t kSamples = 2000;

QString basisSentence(const Composition& c) {
    if (!c.categories().phases)
        return QObject::tr("No phase annotations in this capture (a PyTorch snapshot, or an older recorder): "
                           "every allocated byte is unknown; reserved and cache are exact.");
    return c.categories().tags
               ? QObject::tr("Categories from the recorder's tags (parameters, gradients, optimizer state, "
                             "inputs: exact) and its forward/backward/optimizer phases (the rest: inferred).")
               : QObject::tr("Categories from the recorder's forward/backward/optimizer phases (inferred).");
}

std::vector<int64_t> sampleTimes(const DeviceTrace& t) {
    std::vector<int64_t> out;
    if (t.eventCount() == 0) return out;
    if (t.eventCount() <= kSamples) return {t.timeUs.begin(), t.timeUs.end()}; // exact steps
    const int64_t a = t.timeUs.front(), b = t.timeUs.back();
    for (size_t i = 0; i < kSamples; ++i)
        out.push_back(a + int64_t(double(b - a) * double(i) / double(kSamples - 1)));
    return out;
}

CompositionBands sample(const CaptureAnalysis& a, const Composition& comp, size_t d,
                        const std::atomic<bool>& cancel) {
    CompositionBands b;
    b.basis =
        a.capture().nativeStacks
            ? QObject::tr(
                  "A driver-level recording (the CUPTI agent): every allocation is named by the library "
                  "whose code made it; PyTorch's caching allocator is one of them.")
        : PhaseWindows(a.capture()).empty() && comp.categories().phases
            ? (a.capture().format != "vscap"
                   ? QObject::tr("No recorder annotations (a PyTorch snapshot or profiler trace): categories "
                                 "guessed from the allocations' Python stacks (module forward, "
                                 "torch/autograd, torch/optim, Module.to); inferred.")
                   : QObject::tr("No forward, backward or optimizer annotations in this recording (no "
                                 "model or optimizer the recorder could hook): categories guessed from "
                                 "the allocations' Python stacks (module forward, torch/autograd, "
                                 "torch/optim, Module.to); inferred."))
            : basisSentence(comp);
    for (Category c : kOrder) {
        b.names.push_back(QString::fromUtf8(categoryName(c).data(), int(categoryName(c).size())));
        b.brushes.emplace_back(categoryColour(c));
    }
    const bool pools = comp.hasGraphPools(d);
    if (pools) { // the graphs' own memory (kept for their replays) out of the categories and the cache
        b.names.push_back(QObject::tr("CUDA graph pools: in use"));
        b.brushes.emplace_back(BlockMapView::graphPoolColour());
        b.names.push_back(QObject::tr("CUDA graph pools: reserved, free"));
        b.brushes.emplace_back(BlockMapView::graphPoolColour(), Qt::BDiagPattern);
    }
    b.names.push_back(QObject::tr("PyTorch cache (reserved, free)"));
    b.brushes.emplace_back(QColor("#d9d9d9"));
    const DeviceOutside* outside = comp.outsideOf(a.trace(d).device);
    if (outside)
        for (size_t i = 0; i < outside->owners.size(); ++i) {
            b.names.push_back(
                (a.capture().nativeStacks ? QObject::tr("driver: %1") : QObject::tr("outside PyTorch: %1"))
                    .arg(QString::fromStdString(outside->owners[i].name)));
            b.brushes.emplace_back(QColor(kOutsideColours[i % std::size(kOutsideColours)]));
        }
    const bool gap = outside && !outside->gap.empty();
    if (gap) {
        b.names.push_back(QObject::tr("gap to the driver (context, modules)"));
        b.brushes.emplace_back(QColor("#505050"), Qt::BDiagPattern);
    }
    b.tops.assign(b.names.size(), {});
    for (int64_t t : sampleTimes(a.trace(d))) {
        if (cancel) throw Cancelled();
        const CompositionAt at = comp.at(a, d, t);
        const GraphPoolLevel pool = at.graphPools.value_or(GraphPoolLevel{});
        double top = 0;
        size_t k = 0;
        for (Category c : kOrder)
            b.tops[k++].push_back(top += double(at.categories[size_t(c)] - pool.inUse[size_t(c)]));
        if (pools) {
            b.tops[k++].push_back(top += double(pool.inUseTotal()));
            b.tops[k++].push_back(top += double(std::max<int64_t>(0, pool.free())));
        }
        b.tops[k++].push_back(top +=
                              double(std::max<int64_t>(0, at.cache() - std::max<int64_t>(0, pool.free()))));
        if (outside)
            for (const auto& o : outside->owners) b.tops[k++].push_back(top += double(o.at(t)));
        if (gap)
            b.tops[k++].push_back(top += at.driver ? double(std::max<int64_t>(0, at.driver->gap())) : 0.0);
        b.timesUs.push_back(t);
        b.seconds.push_back(a.secondsOf(t));
    }
    return b;
}

} // namespace

CompositionView::CompositionView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    header_ = new QLabel(this);
    header_->setWordWrap(true);
    header_->setContentsMargins(6, 3, 6, 3);
    plot_ = new QCustomPlot(this);
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new ByteAxisTicker));
    plot_->xAxis->setLabel(tr("seconds"));
    plot_->legend->setVisible(true);
    plot_->legend->setFont(font());
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal);
    plot_->setMouseTracking(true);
    plot_->installEventFilter(this);
    layout->addWidget(header_);
    layout->addWidget(plot_, 1);
    setToolTip(tr(
        "What the device's memory is made of: PyTorch's bytes by category, its cache, "
        "allocations outside PyTorch and the gap to the driver. Hover for bytes; click to show that moment "
        "in the block map."));
}

void CompositionView::follow(Session* session) {
    session_ = session;
    connect(session_, &Session::opened, this, [this] { composition_.reset(); });
    connect(session_, &Session::deviceChanged, this, &CompositionView::compute);
}

void CompositionView::compute() {
    const AnalysisPtr a = session_->analysis();
    if (!a) return;
    const size_t d = session_->device();
    header_->setText(tr("Computing the composition…"));
    auto known = composition_;
    session_->jobs().run<std::pair<std::shared_ptr<const Composition>, CompositionBands>>(
        JobKey::Composition, this,
        [a, d, known](const JobControl& job) {
            auto comp = known ? known : Composition::compute(*a);
            return std::pair{comp, sample(*a, *comp, d, job.cancel())};
        },
        [this](const std::pair<std::shared_ptr<const Composition>, CompositionBands>& r) {
            composition_ = r.first;
            showBands(r.second);
        });
}

void CompositionView::showBands(const CompositionBands& b) {
    bands_ = b;
    header_->setText(b.basis);
    plot_->clearGraphs();
    QVector<double> x(b.seconds.begin(), b.seconds.end());
    QCPGraph* below = nullptr;
    double top = 0;
    for (size_t k = 0; k < b.names.size(); ++k) {
        QCPGraph* g = plot_->addGraph();
        g->setName(b.names[k]);
        g->setData(x, QVector<double>(b.tops[k].begin(), b.tops[k].end()), true);
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setPen(QPen(b.brushes[k].color().darker(115), 1));
        g->setBrush(b.brushes[k]);
        if (below) g->setChannelFillGraph(below);
        below = g;
        for (double v : b.tops[k]) top = std::max(top, v);
    }
    // Categories that never hold a byte stay out of the legend.
    for (int i = plot_->graphCount() - 1; i >= 0; --i) {
        const auto& tops = b.tops[size_t(i)];
        const auto& under = i ? b.tops[size_t(i - 1)] : std::vector<double>(tops.size(), 0.0);
        bool empty = true;
        for (size_t s = 0; s < tops.size() && empty; ++s) empty = tops[s] == under[s];
        if (empty) plot_->graph(i)->removeFromLegend();
    }
    if (!x.isEmpty()) plot_->xAxis->setRange(x.front(), std::max(x.back(), x.front() + 1e-6));
    plot_->yAxis->setRange(0, std::max(top * 1.05, 1.0));
    plot_->replot();
}

QString CompositionView::describe(double seconds) const {
    const AnalysisPtr a = session_ ? session_->analysis() : nullptr;
    if (!a || !composition_) return {};
    const CompositionAt at = composition_->at(*a, session_->device(), microsecondsAt(a->originUs(), seconds));
    QStringList lines{tr("%1 s").arg(seconds, 0, 'f', 3)};
    for (Category c : kOrder)
        if (at.categories[size_t(c)])
            lines << QStringLiteral("%1: %2").arg(
                QString::fromUtf8(categoryName(c).data(), int(categoryName(c).size())),
                formatBytes(double(at.categories[size_t(c)])));
    lines << tr("allocated %1, reserved %2, cache %3")
                 .arg(formatBytes(double(at.allocated)), formatBytes(double(at.reserved)),
                      formatBytes(double(at.cache())));
    if (at.graphPools)
        lines << tr("CUDA graph private pools (part of the above): %1 reserved, %2 in use, %3 free")
                     .arg(formatBytes(double(at.graphPools->reserved)),
                          formatBytes(double(at.graphPools->inUseTotal())),
                          formatBytes(double(at.graphPools->free())));
    for (const auto& [name, bytes] : at.outside)
        lines << tr("outside PyTorch, %1: %2").arg(QString::fromStdString(name), formatBytes(double(bytes)));
    if (at.driver)
        lines << tr("driver (%1): %2, gap %3")
                     .arg(at.driver->processFigure ? tr("this process, NVML") : tr("whole device"),
                          formatBytes(double(at.driver->driverUsed)), formatBytes(double(at.driver->gap())));
    return lines.join(QLatin1Char('\n'));
}

bool CompositionView::eventFilter(QObject* watched, QEvent* e) {
    if (watched == plot_ && e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        QToolTip::showText(help->globalPos(), describe(plot_->xAxis->pixelToCoord(help->pos().x())), plot_);
        return true;
    }
    if (watched == plot_ && e->type() == QEvent::MouseButtonPress)
        pressX_ = static_cast<QMouseEvent*>(e)->pos().x();
    // A click, not the end of a drag (dragging pans the time axis)
    if (watched == plot_ && e->type() == QEvent::MouseButtonRelease && session_ && session_->analysis() &&
        std::abs(static_cast<QMouseEvent*>(e)->pos().x() - pressX_) < 4) {
        auto* m = static_cast<QMouseEvent*>(e);
        const auto a = session_->analysis();
        const auto& t = a->trace(session_->device()).timeUs;
        const int64_t at = microsecondsAt(a->originUs(), plot_->xAxis->pixelToCoord(m->pos().x()));
        session_->setMoment(size_t(std::upper_bound(t.begin(), t.end(), at) - t.begin()));
    }
    return QWidget::eventFilter(watched, e);
}

} // namespace vs::ui
