#include "views/panels/WhatIfPanel.h"

#include "common/ByteAxisTicker.h"
#include "session/Session.h"

#include "analysis/stacks/SiteText.h"
#include "util/Format.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

namespace vs::ui {
namespace {

constexpr int kBuckets = 1500; // points per curve: the peak of each bucket, so no spike is lost

// The largest value in each of kBuckets time buckets over [t0, t1]; an empty bucket repeats the last.
template <class TimeOf, class ValueOf>
QVector<double> bucketPeaks(size_t n, TimeOf timeOf, ValueOf valueOf, double t0, double t1) {
    QVector<double> out(kBuckets, -1);
    const double span = std::max(t1 - t0, 1e-9);
    for (size_t i = 0; i < n; ++i) {
        const int b = std::clamp(int((timeOf(i) - t0) / span * (kBuckets - 1)), 0, kBuckets - 1);
        out[b] = std::max(out[b], double(valueOf(i)));
    }
    double last = 0;
    for (double& v : out) v = v < 0 ? last : (last = v);
    return out;
}

WhatIfOutcome compute(const AnalysisPtr& a, size_t d, const SimConfig& chosen,
                      std::optional<uint64_t> capacity, const std::atomic<bool>& cancel) {
    const SimInput in =
        SimInput::fromTrace(a->trace(d), a->capture().streams, a->replay(d), a->capture().settings);
    SimConfig recorded = SimConfig::fromSettings(a->capture().settings);
    recorded.memoryFraction = chosen.memoryFraction; // a fraction chosen applies to the recorded run too
    WhatIfOutcome o;
    o.startsMidRun = in.startsMidRun;
    o.capacity =
        capacity ? Capacity{*capacity, "given"} : defaultCapacity(a->capture(), a->trace(d).device, in);
    o.recorded = vs::simulate(in, recorded, {o.capacity.bytes, true, &cancel});
    o.chosen = vs::simulate(in, chosen, {o.capacity.bytes, true, &cancel});
    o.reproduction = compareWithRecording(o.recorded, a->replay(d));
    const auto& t = a->trace(d);
    const double t0 = t.eventCount() ? a->secondsAt(d, 0) : 0,
                 t1 = t.eventCount() ? a->secondsAt(d, uint32_t(t.eventCount() - 1)) : 1;
    for (int b = 0; b < kBuckets; ++b) o.time.push_back(t0 + (t1 - t0) * b / (kBuckets - 1));
    const auto& rep = a->replay(d);
    o.recordedReserved = bucketPeaks(
        t.eventCount(), [&](size_t i) { return a->secondsAt(d, uint32_t(i)); },
        [&](size_t i) { return rep.reserved[i]; }, t0, t1);
    const auto& c = o.chosen;
    o.chosenReserved = bucketPeaks(
        c.event.size(), [&](size_t i) { return a->secondsAt(d, c.event[i]); },
        [&](size_t i) { return c.reserved[i]; }, t0, t1);
    if (c.firstOom) { // the simulated program stops there: no curve after it
        o.oomTime = a->secondsAt(d, c.firstOom->event);
        for (int b = 0; b < kBuckets; ++b)
            if (o.time[b] > o.oomTime) o.chosenReserved[b] = qQNaN();
    }
    o.peakTime = c.peakReserved ? a->secondsAt(d, c.peakEvent) : 0;
    char when[32];
    std::snprintf(when, sizeof when, "%.3f s", o.oomTime);
    o.sentence = QString::fromStdString(whatIfSentence(o.recorded, o.chosen, c.firstOom ? when : ""));
    return o;
}

// "40 GiB", "40GiB", "1.5e10", "42949672960"; nullopt for blank; throws for anything else.
std::optional<uint64_t> parseCapacity(const QString& text) {
    const QString s = text.trimmed();
    if (s.isEmpty()) return std::nullopt;
    static const QRegularExpression re(QStringLiteral("^([0-9.eE+]+)\\s*(B|KiB|MiB|GiB|TiB)?$"));
    const auto m = re.match(s);
    bool ok = false;
    const double v = m.hasMatch() ? m.captured(1).toDouble(&ok) : 0;
    if (!ok || !(v > 0)) throw std::invalid_argument("capacity: a number of bytes, e.g. 40 GiB");
    const QString unit = m.captured(2);
    const int shift = unit == "KiB" ? 10 : unit == "MiB" ? 20 : unit == "GiB" ? 30 : unit == "TiB" ? 40 : 0;
    return uint64_t(v * double(1ull << shift));
}

QString bytesLabel(int64_t n) {
    return QString::fromStdString(humanBytes(n));
}

} // namespace

WhatIfPanel::WhatIfPanel(QWidget* parent) : QWidget(parent) {
    presets_ = new QComboBox(this);
    presets_->addItem(tr("Common settings\u2026"));
    for (const auto& c : sweepGrid(SimConfig{}, true))
        if (c != SimConfig{}) presets_->addItem(QString::fromStdString(c.toString()));
    conf_ = new QLineEdit(this);
    conf_->setPlaceholderText(QStringLiteral("expandable_segments:True,max_split_size_mb:128"));
    conf_->setToolTip(tr("PYTORCH_CUDA_ALLOC_CONF keys: expandable_segments, max_split_size_mb, "
                         "max_non_split_rounding_mb, roundup_power2_divisions, garbage_collection_threshold, "
                         "backend (native, cudaMallocAsync); per_process_memory_fraction for the fraction"));
    capacity_ = new QLineEdit(this);
    capacity_->setPlaceholderText(tr("capacity (e.g. 40 GiB)"));
    capacity_->setToolTip(tr("Device memory the allocator may reserve; blank: the recorded device, or what a "
                             "recorded out-of-memory implies, else unlimited"));
    capacity_->setMaximumWidth(150);
    capacity_->setMinimumWidth(110);
    run_ = new QPushButton(tr("Simulate"), this);
    sweepButton_ = new QPushButton(tr("Sweep"), this);
    sweepButton_->setToolTip(tr("Simulate 16 common settings (two threads) and rank them by peak reserved"));
    // two rows: the settings get the width (the details pane is narrow), the buttons the second row
    presets_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    presets_->setMinimumContentsLength(16);
    auto* settingsRow = new QHBoxLayout;
    settingsRow->addWidget(conf_, 1);
    settingsRow->addWidget(capacity_);
    auto* buttonsRow = new QHBoxLayout;
    buttonsRow->addWidget(presets_, 1);
    buttonsRow->addWidget(run_);
    buttonsRow->addWidget(sweepButton_);
    auto* inputs = new QVBoxLayout;
    inputs->addLayout(settingsRow);
    inputs->addLayout(buttonsRow);
    sentence_ = new QLabel(tr("Choose settings and press Simulate."), this);
    sentence_->setWordWrap(true);
    QFont bold = sentence_->font();
    bold.setBold(true);
    sentence_->setFont(bold);
    figures_ = new QLabel(this);
    figures_->setWordWrap(true);
    figures_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_ = new QLabel(this);
    error_->setStyleSheet(QStringLiteral("QLabel { color: #b02a37; }"));
    error_->setVisible(false);
    plot_ = new QCustomPlot(this);
    plot_->setMinimumHeight(160);
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new ByteAxisTicker));
    plot_->xAxis->setLabel(tr("seconds"));
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignLeft | Qt::AlignTop);
    QFont small = plot_->legend->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    plot_->legend->setFont(small);
    plot_->legend->setBrush(QColor(255, 255, 255, 200));
    plot_->addGraph()->setName(tr("recorded reserved"));
    plot_->graph(0)->setPen(QPen(QColor(140, 140, 140), 2));
    plot_->addGraph()->setName(tr("simulated reserved"));
    plot_->graph(1)->setPen(QPen(QColor(31, 119, 180), 1.5));
    table_ = new QTableWidget(0, 6, this);
    table_->setHorizontalHeaderLabels({tr("Rank"), tr("Peak reserved"), tr("Final reserved"),
                                       tr("Frag. at peak"), tr("OOM"), tr("Settings")});
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(inputs);
    layout->addWidget(error_);
    layout->addWidget(sentence_);
    layout->addWidget(figures_);
    auto* split = new QSplitter(Qt::Vertical, this); // the user shares the height between curve and sweep
    split->addWidget(plot_);
    split->addWidget(table_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    connect(presets_, &QComboBox::activated, this, [this](int i) {
        if (i > 0) setConf(presets_->itemText(i)), simulate();
    });
    connect(conf_, &QLineEdit::returnPressed, this, &WhatIfPanel::simulate);
    connect(capacity_, &QLineEdit::returnPressed, this, &WhatIfPanel::simulate);
    connect(run_, &QPushButton::clicked, this, &WhatIfPanel::simulate);
    connect(sweepButton_, &QPushButton::clicked, this, &WhatIfPanel::sweep);
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        setConf(table_->item(row, 5)->data(Qt::UserRole).toString());
        simulate();
    });
}

void WhatIfPanel::follow(Session* session) {
    session_ = session;
    connect(session, &Session::opened, this, &WhatIfPanel::reset);
    connect(session, &Session::deviceChanged, this, &WhatIfPanel::reset);
}

void WhatIfPanel::setConf(const QString& conf) {
    conf_->setText(conf == QLatin1String("defaults") ? QString() : conf);
}

void WhatIfPanel::setCapacityText(const QString& text) {
    capacity_->setText(text);
}

QString WhatIfPanel::sentence() const {
    return sentence_->text();
}

QString WhatIfPanel::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

void WhatIfPanel::reset() {
    outcome_.reset();
    plot_->graph(0)->data()->clear();
    plot_->graph(1)->data()->clear();
    plot_->clearItems();
    plot_->replot();
    table_->setRowCount(0);
    sentence_->setText(tr("Choose settings and press Simulate."));
    figures_->clear();
    error_->setVisible(false);
}

void WhatIfPanel::fail(const QString& message) {
    error_->setText(message);
    error_->setVisible(true);
}

bool WhatIfPanel::readInputs(SimConfig& config, std::optional<uint64_t>& capacity) {
    error_->setVisible(false);
    if (!session_ || !session_->isOpen() || !session_->analysis()->trace(session_->device()).eventCount()) {
        fail(tr("Open a capture with allocator events first."));
        return false;
    }
    if (session_->analysis()->trace(session_->device()).device == kPinnedHostDevice) {
        fail(tr("Pinned host memory comes from PyTorch's host allocator, not the CUDA caching allocator "
                "the what-if simulates: pick a GPU in the device list."));
        return false;
    }
    if (session_->analysis()
            ->capture()
            .nativeStacks) { // cudaMalloc calls, not the caching allocator's requests
        fail(tr("This capture was recorded at the CUDA driver level (CUPTI agent): it holds no PyTorch "
                "allocator requests to simulate."));
        return false;
    }
    try {
        config = SimConfig::fromSettings(session_->analysis()->capture().settings)
                     .with(conf_->text().toStdString());
        capacity = parseCapacity(capacity_->text());
    } catch (const std::invalid_argument& e) {
        fail(tr("Cannot simulate: %1").arg(QString::fromStdString(e.what())));
        return false;
    }
    return true;
}

void WhatIfPanel::simulate() {
    SimConfig config;
    std::optional<uint64_t> capacity;
    if (!readInputs(config, capacity)) return;
    sentence_->setText(tr("Simulating %1\u2026").arg(QString::fromStdString(config.toString())));
    const AnalysisPtr a = session_->analysis();
    const size_t d = session_->device();
    session_->jobs().run<WhatIfOutcome>(
        JobKey::WhatIf, this,
        [a, d, config, capacity](const JobControl& job) {
            return compute(a, d, config, capacity, job.cancel());
        },
        [this](const WhatIfOutcome& o) { show(o); });
}

void WhatIfPanel::sweep() {
    SimConfig config;
    std::optional<uint64_t> capacity;
    if (!readInputs(config, capacity)) return;
    const AnalysisPtr a = session_->analysis();
    const size_t d = session_->device();
    sentence_->setText(tr("Sweeping common settings\u2026"));
    session_->jobs().run<std::vector<SimResult>>(
        JobKey::WhatIfSweep, this,
        [a, d, config, capacity](const JobControl& job) {
            const SimInput in =
                SimInput::fromTrace(a->trace(d), a->capture().streams, a->replay(d), a->capture().settings);
            SimConfig recorded = SimConfig::fromSettings(a->capture().settings);
            recorded.memoryFraction = config.memoryFraction;
            const uint64_t cap =
                capacity ? *capacity : defaultCapacity(a->capture(), a->trace(d).device, in).bytes;
            const unsigned threads = std::max(1u, std::min(2u, std::thread::hardware_concurrency()));
            return vs::sweep(in, sweepGrid(recorded, cap != 0), cap, threads, &job.cancel());
        },
        [this](const std::vector<SimResult>& r) { showSweep(r); });
}

void WhatIfPanel::show(const WhatIfOutcome& o) {
    outcome_ = o;
    sentence_->setText(o.sentence);
    const auto& r = o.recorded;
    const auto& c = o.chosen;
    QString text = tr("Capacity: %1. ")
                       .arg(o.capacity.bytes ? tr("%1 (%2)").arg(bytesLabel(int64_t(o.capacity.bytes)),
                                                                 QString::fromStdString(o.capacity.source))
                                             : tr("unlimited (not recorded; type one)"));
    if (r.firstOom) // the recorded run needed more than this capacity: nothing to reproduce
        text += tr("Recorded settings (%1) would run out of memory under this capacity too. ")
                    .arg(QString::fromStdString(r.config.toString()));
    else
        text += tr("Recorded settings (%1): simulated peak reserved %2, %3. ")
                    .arg(QString::fromStdString(r.config.toString()), bytesLabel(r.peakReserved),
                         o.reproduction.exact()
                             ? tr("every one of %L1 recorded steps reproduced").arg(o.reproduction.steps)
                             : tr("%L1 of %L2 recorded steps differ")
                                   .arg(o.reproduction.mismatches)
                                   .arg(o.reproduction.steps));
    text +=
        tr("Chosen (%1)%2: peak reserved %3 at %4 s, final reserved %5, peak allocated %6, fragmentation at "
           "peak %7 %, %L8 segments created.")
            .arg(QString::fromStdString(c.config.toString()),
                 c.approximate ? tr(" [approximate model]") : QString(), bytesLabel(c.peakReserved))
            .arg(o.peakTime, 0, 'f', 3)
            .arg(bytesLabel(c.finalReserved), bytesLabel(c.peakAllocated))
            .arg(100.0 * c.fragmentationAtPeak(), 0, 'f', 1)
            .arg(c.segmentsCreated);
    if (c.firstOom) {
        const auto& a = *session_->analysis();
        const auto& t = a.trace(session_->device());
        text += tr(" First out-of-memory at %1 s: a request of %2 (event %L3, %4) failed with %5 reserved.")
                    .arg(o.oomTime, 0, 'f', 3)
                    .arg(bytesLabel(int64_t(c.firstOom->size)))
                    .arg(c.firstOom->event)
                    .arg(QString::fromStdString(siteText(a.capture(), t.stack[c.firstOom->event])))
                    .arg(bytesLabel(c.firstOom->reserved));
    }
    if (o.startsMidRun)
        text += tr(
            " The trace starts mid-run: both simulations start from the recorded state at its first event.");
    figures_->setText(text);
    plot_->graph(0)->setData(o.time, o.recordedReserved, true);
    plot_->graph(1)->setData(o.time, o.chosenReserved, true);
    plot_->graph(1)->setName(tr("simulated reserved (%1)").arg(QString::fromStdString(c.config.toString())));
    plot_->clearItems();
    if (o.oomTime >= 0) {
        auto* line = new QCPItemStraightLine(plot_);
        line->point1->setCoords(o.oomTime, 0);
        line->point2->setCoords(o.oomTime, 1);
        line->setPen(QPen(QColor(200, 40, 40), 1.5, Qt::DashLine));
    }
    if (o.capacity.bytes) {
        auto* cap = new QCPItemStraightLine(plot_);
        cap->point1->setCoords(0, double(o.capacity.bytes));
        cap->point2->setCoords(1, double(o.capacity.bytes));
        cap->setPen(QPen(QColor(200, 120, 0), 1, Qt::DotLine));
    }
    plot_->xAxis->setRange(o.time.front(), o.time.back());
    const double recordedPeak = *std::max_element(o.recordedReserved.begin(), o.recordedReserved.end());
    const double top = std::max({recordedPeak, double(c.peakReserved), double(o.capacity.bytes)}) * 1.08;
    plot_->yAxis->setRange(0, std::max(top, 1.0));
    plot_->replot();
}

void WhatIfPanel::showSweep(const std::vector<SimResult>& results) {
    const std::vector<size_t> order = rankSweep(results);
    table_->setRowCount(int(order.size()));
    for (int row = 0; row < int(order.size()); ++row) {
        const SimResult& r = results[order[size_t(row)]];
        const QString conf = QString::fromStdString(r.config.toString());
        const QStringList cells = {QString::number(row + 1),
                                   bytesLabel(r.peakReserved),
                                   bytesLabel(r.finalReserved),
                                   QString::number(100.0 * r.fragmentationAtPeak(), 'f', 1) + " %",
                                   r.firstOom ? tr("yes") : tr("no"),
                                   conf + (order[size_t(row)] == 0 ? tr(" (recorded)") : QString()) +
                                       (r.approximate ? tr(" (approximate)") : QString())};
        for (int col = 0; col < cells.size(); ++col)
            table_->setItem(row, col, new QTableWidgetItem(cells[col]));
        table_->item(row, 5)->setData(Qt::UserRole, conf);
    }
    table_->resizeColumnsToContents();
    if (!results.empty())
        sentence_->setText(tr("Sweep: %1. Double-click a row to see its curve.")
                               .arg(QString::fromStdString(whatIfSentence(results[0], results[order[0]]))));
}

} // namespace vs::ui
