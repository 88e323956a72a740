#include "views/panels/BlockMapPanel.h"

#include "common/ByteAxisTicker.h"
#include "common/Icons.h"
#include "session/Session.h"
#include "util/TimeOrigin.h"
#include "views/panels/OomRequestBars.h"

#include <QComboBox>
#include <QEvent>

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

namespace vs::ui {

BlockMapPanel::BlockMapPanel(QWidget* parent) : QWidget(parent) {
    view_ = new BlockMapView(this);
    colour_ = new QComboBox(this);
    colour_->addItems({tr("Colour by state"), tr("Colour by allocation site"), tr("Colour by age"),
                       tr("Colour by category")});
    colour_->setToolTip(
        tr("State: allocated blue, pending free amber, free grey. Site: one colour per allocating "
           "line. Age: newer blocks brighter. Category: parameter, gradient, optimizer state, input, "
           "activation, temporary (from the recorder's tags and phases)."));
    connect(colour_, &QComboBox::currentIndexChanged, this, [this](int i) {
        view_->setColourBy(static_cast<BlockMapView::ColourBy>(i));
        if (view_->colourBy() == BlockMapView::ColourBy::Category) classify();
        updateLegend();
    });
    play_ = new QToolButton(this);
    play_->setCheckable(true);
    play_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    play_->setToolTip(tr("Animate the allocator's state through the capture"));
    connect(play_, &QToolButton::toggled, this, &BlockMapPanel::setPlaying);
    speed_ = new QComboBox(this);
    speed_->addItem(tr("Auto speed"), 0); // the whole capture in about ten seconds
    for (int n : {1, 10, 100, 1000, 10000, 100000}) speed_->addItem(tr("%L1 events/step").arg(n), n);
    speed_->setToolTip(tr("Events replayed per animation step (25 steps a second); Auto plays the whole "
                          "capture in about %1 s")
                           .arg(kAutoPlaySeconds));
    label_ = new QLabel(this); // its own line, wrapped: a long moment must neither clip nor widen
    label_->setWordWrap(true);
    label_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    label_->setMinimumHeight(2 * fontMetrics().height());
    legend_ = new QLabel(this);
    legend_->setWordWrap(true);
    legend_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    legend_->setMinimumHeight(fontMetrics().height() + 4);
    auto* bar = new QHBoxLayout;
    bar->addWidget(colour_);
    bar->addWidget(play_);
    bar->addWidget(speed_);
    bar->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(label_);
    oomBars_ = new OomRequestBars(this);
    layout->addWidget(oomBars_);
    layout->addWidget(legend_);
    layout->addWidget(view_, 1);
    setPlaying(false); // the button's icon and text
    updateLegend();
    timer_.setInterval(40);
    connect(&timer_, &QTimer::timeout, this, [this] {
        if (!analysis_) return setPlaying(false);
        const size_t n = analysis_->trace(device_).eventCount();
        const size_t next = view_->moment() + eventsPerStep();
        moveTo(next >= n ? n : next);
        if (view_->moment() >= n) setPlaying(false);
    });
}

void BlockMapPanel::follow(Session* session) {
    view_->setReplayer([this, session](size_t moment) {
        const AnalysisPtr a = analysis_;
        const size_t d = device_;
        session->jobs().run<std::vector<StateSegment>>(
            JobKey::BlockMap, this,
            [a, d, moment](const JobControl&) {
                return Replay::stateAfter(a->trace(d), a->capture().streams, a->replay(d), a->rules(),
                                          moment);
            },
            [this, moment](const std::vector<StateSegment>& state) { view_->setState(moment, state); });
    });
    connect(view_, &BlockMapView::stateReady, this, &BlockMapPanel::updateLabel);
    session_ = session;
    connect(session, &Session::momentChanged, this, &BlockMapPanel::setMoment);
    // one set of marks at a time: a Leaks group's blocks, or the blocks a retention holder keeps
    connect(session, &Session::allocationsMarked, this, [this](const std::vector<uint32_t>& events) {
        markAddresses({});
        markAllocations(events);
    });
    connect(session, &Session::addressesMarked, this, [this](const std::vector<uint64_t>& addresses) {
        markAllocations({});
        markAddresses(addresses);
    });
    connect(session, &Session::addressPointed, view_,
            [this](uint64_t address) { view_->setHighlightedAddress(address); });
    connect(view_, &BlockMapView::blockClicked, session,
            [session](size_t, uint32_t allocEvent) { session->selectBlock(allocEvent); });
    connect(session, &Session::deviceChanged, this, [this, session](size_t device) {
        setAnalysis(session->analysis(), device, session->originUs());
        if (view_->colourBy() == BlockMapView::ColourBy::Category) classify();
    });
    connect(session, &Session::extended, this, [this, session] {
        analysis_ = session->analysis();
        view_->grow(analysis_); // at the latest moment it stays there; an older moment is kept
        updateLabel();
    });
}

void BlockMapPanel::setAnalysis(AnalysisPtr analysis, size_t device, int64_t originUs) {
    setPlaying(false);
    analysis_ = std::move(analysis);
    device_ = device;
    originUs_ = originUs;
    view_->setAnalysis(analysis_, device);
    updateLabel();
    updateLegend(); // a capture with CUDA graph pools adds their stripe
}

// The map's own Play moves the session's moment (which every view shares, the timeline's marker
// with it); without a session, itself.
void BlockMapPanel::moveTo(size_t eventsApplied) {
    if (session_) return session_->playTo(eventsApplied);
    setMoment(eventsApplied);
}

void BlockMapPanel::setMoment(size_t eventsApplied) {
    view_->setMoment(eventsApplied);
    updateLabel();
}

void BlockMapPanel::markAllocations(std::vector<uint32_t> allocEvents) {
    view_->setMarkedAllocations(std::move(allocEvents));
    updateLabel();
}

void BlockMapPanel::markAddresses(std::vector<uint64_t> addresses) {
    view_->setMarkedAddresses(std::move(addresses));
    updateLabel();
}

void BlockMapPanel::setPlaying(bool on) {
    if (on && analysis_ && view_->moment() >= analysis_->trace(device_).eventCount()) moveTo(0);
    on ? timer_.start() : timer_.stop();
    play_->setChecked(on);
    play_->setText(on ? tr("Pause") : tr("Play"));
    play_->setIcon(icons::named(on ? QStringLiteral("pause") : QStringLiteral("play"), palette()));
}

size_t BlockMapPanel::eventsPerStep() const {
    const int chosen = speed_->currentData().toInt();
    if (chosen > 0 || !analysis_) return size_t(std::max(chosen, 1));
    const double steps = kAutoPlaySeconds * 1000.0 / double(timer_.interval());
    return std::max<size_t>(1, size_t(std::ceil(double(analysis_->trace(device_).eventCount()) / steps)));
}

// Swatches for what the chosen colouring means, in the view's own colours.
void BlockMapPanel::updateLegend() {
    QStringList parts;
    for (const auto& e : view_->legend())
        parts << QStringLiteral("<span style='color:%1'>\u25a0</span>&nbsp;%2")
                     .arg(e.colour.name(), e.name.toHtmlEscaped());
    legend_->setText(parts.join(QStringLiteral(" &nbsp; ")));
}

void BlockMapPanel::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange) updateLegend(), setPlaying(timer_.isActive());
    QWidget::changeEvent(e);
}

void BlockMapPanel::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    updateLabel(); // the moment may have moved while the tab was hidden
}

// The label sums the map's state: only while shown (a hidden map replays nothing).
void BlockMapPanel::updateLabel() {
    if (!analysis_ || !isVisible() || view_->replaying()) return; // the label follows the state
    const DeviceTrace& t = analysis_->trace(device_);
    const size_t m = view_->moment();
    int64_t reserved = 0, allocated = 0;
    for (const auto& s : view_->segments()) {
        reserved += int64_t(s.size);
        for (const auto& b : s.blocks)
            allocated += b.state == BlockState::ActiveAllocated ? int64_t(b.size) : 0;
    }
    const QString when = m == 0 ? tr("before the first event")
                                : tr("after event #%1 (%2 s)")
                                      .arg(m - 1)
                                      .arg(secondsSince(originUs_, t.timeUs[m - 1]), 0, 'f', 6);
    const size_t marked = view_->markedAlive();
    label_->setText(
        tr("%1 \u2022 %n segment(s), reserved %2, allocated %3", nullptr, int(view_->segments().size()))
            .arg(when, formatBytes(double(reserved)), formatBytes(double(allocated))) +
        (marked ? tr(" \u2022 %n marked block(s) (red)", nullptr, int(marked)) : QString()) + oomText(m));
    updateLegend(); // an OOM's highlighted block joins it
}

// At an out-of-memory error: the failed request beside the largest free block it could have used (its
// pool: PyTorch's small pool serves up to 1 MiB), which the map outlines.
QString BlockMapPanel::oomText(size_t moment) {
    const DeviceTrace& t = analysis_->trace(device_);
    oomBars_->hide();
    if (moment == 0 || t.action[moment - 1] != Action::Oom) return {};
    const uint64_t request = t.size[moment - 1];
    const StateBlock* largest = nullptr;
    for (const auto& s : view_->segments())
        for (const auto& b : s.blocks)
            if (b.state == BlockState::Inactive && s.smallPool == (request <= (1u << 20)) &&
                (!largest || b.size > largest->size))
                largest = &b;
    if (largest) view_->setHighlightedAddress(largest->address);
    oomBars_->setSizes(request, largest ? largest->size : 0);
    return tr("<br><b style='color:#c0392b'>Out of memory here:</b> a request of %1 against a largest free "
              "block of %2%3")
        .arg(formatBytes(double(request)), formatBytes(largest ? double(largest->size) : 0.0),
             largest ? tr(" (highlighted)") : QString());
}

// The categories of the session's device, in the background, when the colouring needs them.
void BlockMapPanel::classify() {
    if (!session_ || !session_->analysis()) return;
    const AnalysisPtr a = session_->analysis();
    const size_t d = session_->device();
    view_->setCategories(nullptr);
    session_->jobs().run<std::shared_ptr<const DeviceCategories>>(
        JobKey::BlockMapCategories, this, [a, d](const JobControl&) { return a->categories(d); },
        [this](const std::shared_ptr<const DeviceCategories>& c) { view_->setCategories(c); });
}

} // namespace vs::ui
