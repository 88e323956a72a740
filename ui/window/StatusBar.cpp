#include "window/StatusBar.h"

#include "common/ByteAxisTicker.h"
#include "live/LiveController.h"
#include "models/RegionTableModel.h"
#include "session/CaptureLoader.h"
#include "session/Session.h"
#include "timeline/TimelinePlot.h"

#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

namespace vs::ui {

StatusBar::StatusBar(Session* session, TimelinePlot* timeline, CaptureLoader* loader, LiveController* live,
                     QWidget* parent)
    : QStatusBar(parent), session_(session), timeline_(timeline) {
    file_ = new QLabel(tr("No capture open"), this);
    cursor_ = new QLabel(this);
    selection_ = new QLabel(this);
    region_ = new QLabel(this);
    region_->setObjectName(QStringLiteral("regionStatus"));
    region_->setToolTip(tr("The selected growth region; Ctrl+] and Ctrl+[ step through the regions"));
    // a long sentence is cut at the window's edge: it must never widen the window
    region_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 100);
    progress_->setMaximumWidth(220);
    progress_->setVisible(false);
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setToolTip(tr("Stop opening this file (Esc)"));
    cancel_->setVisible(false);
    addWidget(file_);
    addWidget(region_, 1);
    addWidget(selection_);
    addPermanentWidget(cursor_);
    addPermanentWidget(progress_);
    addPermanentWidget(cancel_);

    connect(cancel_, &QPushButton::clicked, loader, &CaptureLoader::cancel);
    connect(loader, &CaptureLoader::progress, progress_, &QProgressBar::setValue);
    connect(loader, &CaptureLoader::cancelled, this, [this](const QString& path) {
        setBusy(false);
        showFile();
        showMessage(tr("Opening %1 was cancelled").arg(QFileInfo(path).fileName()), 5000);
    });
    connect(live, &LiveController::status, this, [this](const QString& text) { showMessage(text); });
    connect(timeline, &TimelinePlot::cursorMoved, this, [this](double seconds) {
        if (session_->isOpen()) cursor_->setText(tr("t = %1 s").arg(seconds, 0, 'f', 6));
    });
    connect(session, &Session::opened, this, [this] {
        showFile();
        file_->setToolTip(session_->path());
        cursor_->clear();
    });
    connect(session, &Session::extended, this, &StatusBar::showFile);
    connect(session, &Session::deviceChanged, this, [this] {
        selection_->clear();
        region_->clear();
    });
    connect(session, &Session::rangeChanged, this, &StatusBar::showRange);
    connect(session, &Session::regionChanged, this, &StatusBar::showRegion);
    connect(session, &Session::allocationsListed, this, [this](const std::vector<uint32_t>& events) {
        showMessage(tr("%n allocation(s) marked in the event list: F3 / Shift+F3 step through them", nullptr,
                       int(events.size())),
                    8000);
    });
}

void StatusBar::setBusy(bool busy) {
    progress_->setVisible(busy);
    progress_->setValue(0);
    cancel_->setVisible(busy);
}

void StatusBar::showOpening(const QString& text) {
    file_->setText(text);
}

void StatusBar::showFile() {
    file_->setText(fileText());
}

QString StatusBar::regionText() const {
    return region_->text();
}

// "run.vscap • 2 device(s) • 1,234 events", or that nothing is open.
QString StatusBar::fileText() const {
    const AnalysisPtr a = session_->analysis();
    if (!a) return tr("No capture open");
    size_t events = 0;
    for (size_t i = 0; i < a->deviceCount(); ++i) events += a->trace(i).eventCount();
    return tr("%1 \u2022 %n device(s)", nullptr, int(a->deviceCount()))
               .arg(QFileInfo(session_->path()).fileName()) +
           tr(" \u2022 %L1 events").arg(events);
}

void StatusBar::showRange(std::optional<std::pair<double, double>> range) {
    if (!range || !session_->isOpen()) return selection_->clear();
    const auto [from, to] = *range;
    const size_t d = session_->device();
    const Totals a = timeline_->valuesAt(d, from), b = timeline_->valuesAt(d, to);
    auto delta = [](int64_t v) {
        return (v >= 0 ? QStringLiteral("+") : QString()) + formatBytes(double(v));
    };
    // the net change between the edges (temporaries alive at either edge count); the Leaks tab says
    // what was made inside and survived, which can grow while this falls
    selection_->setToolTip(
        tr("Allocated and reserved at the selection's end minus at its start. The Leaks tab "
           "lists what was made inside it and is still alive at its end."));
    selection_->setText(tr("Selection %1 s: net allocated %2, reserved %3")
                            .arg(to - from, 0, 'f', 6)
                            .arg(delta(b.allocated - a.allocated), delta(b.reserved - a.reserved)));
}

// "leak: 1.25 GiB over 241 iterations, 0.000 s – 10.643 s; released: ..."; cleared with the region.
void StatusBar::showRegion() {
    const auto& r = session_->region();
    if (!r) return region_->clear();
    const size_t d = session_->device();
    const double from = session_->secondsAt(d, r->first), to = session_->secondsAt(d, r->last);
    QString sentence = tr("%1, %2 s \u2013 %3 s")
                           .arg(RegionTableModel::describe(*r))
                           .arg(from, 0, 'f', 3)
                           .arg(to, 0, 'f', 3);
    // a region with no release says so itself ("not released: ...", "freed within the iteration"):
    // "released: not released" once
    const QString by = QString::fromStdString(r->releasedBy);
    if (!by.isEmpty())
        sentence += r->releasedAt == kNoEvent ? QStringLiteral("; ") + by : tr("; released: %1").arg(by);
    region_->setText(sentence);
}

} // namespace vs::ui
