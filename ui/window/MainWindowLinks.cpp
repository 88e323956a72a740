// MainWindow's linked views: what a selection in one view shows in the others. A click on the
// timeline selects a growth region (or an iteration's rise, or the event there); a Leaks group marks
// its allocations on the timeline, in the block map and, on request, in the event list; a block in
// the block map and a retention group select each other.
#include "views/AllocationBandsView.h"
#include "views/BlockMapPanel.h"
#include "models/EventTableModel.h"
#include "views/EventTableView.h"
#include "views/LeaksPanel.h"
#include "window/MainWindow.h"
#include "views/MemoryMapView.h"
#include "window/RegionSelector.h"
#include "views/RetentionPanel.h"
#include "timeline/TimelinePlot.h"
#include "session/Session.h"

#include <QLabel>
#include <QStatusBar>

namespace vs::ui {

void MainWindow::linkViews() {
    connect(timeline_, &TimelinePlot::timeClicked, this, [this](double seconds) {
        // On a ramp (a listed region, selected by regionClicked, or an iteration's rise when zoomed in)
        // the Leaks tab and the block map show the region; the event there goes to the list and stack.
        keepDetails_ = timeline_->regionAt(model_->device(), seconds) || regions_->selectRampAt(seconds);
        selectEventAt(seconds);
        keepDetails_ = false;
    });
    connect(regions_, &RegionSelector::regionSelected, this, [this](const QString& sentence, bool byUser) {
        regionLabel_->setText(sentence);
        if (byUser) showLeaksTab(); // its diagnosis; a cold open shows it when the report is a finding
    });
    connect(leaks_, &LeaksPanel::windowChanged, this, [this](double from, double to, bool automatic) {
        if (automatic && !regions_->selected()) timeline_->setGrowthRegion(QCPRange(from, to));
    });
    connect(leaks_, &LeaksPanel::reportReady, this, [this] { // a finding comes first
        if (leaks_->report().kind != LeakKind::None && leaks_->report().autoWindow) showLeaksTab();
    });
    connect(leaks_, &LeaksPanel::groupHighlighted, this,
            [this](size_t device, const QVector<double>& times, const QVector<quint32>& events) {
                timeline_->setMarkedTimes(device, times);
                if (device != model_->device()) return;
                blockMap_->markAddresses({}); // one set of marks at a time: the group's blocks
                blockMap_->markAllocations({events.begin(), events.end()});
            });
    connect(leaks_, &LeaksPanel::showAllocationsRequested, this,
            [this](size_t device, const QVector<quint32>& events) {
                if (device != model_->device() || events.isEmpty()) return;
                model_->setMarkedEvents({events.begin(), events.end()});
                table_->goToEvent(events.front());
                statusBar()->showMessage(
                    tr("%n allocation(s) marked in the event list: F3 / Shift+F3 step through them", nullptr,
                       int(events.size())),
                    8000);
            });
    linkBlockMap();
}

void MainWindow::linkBlockMap() {
    connect(blockMap_->view(), &BlockMapView::blockClicked, this, [this](size_t, uint32_t allocEvent) {
        const DeviceTrace& t = session_->analysis()->trace(model_->device());
        size_t freed = t.eventCount() - 1; // the block's lifetime: to its free, or to the end
        for (size_t i = allocEvent + 1; i < t.eventCount(); ++i)
            if ((t.action[i] == Action::FreeRequested || t.action[i] == Action::FreeCompleted) &&
                t.addr[i] == t.addr[allocEvent]) {
                freed = i;
                break;
            }
        auto seconds = [&](size_t e) { return double(t.timeUs[e] - timeline_->originUs()) / 1e6; };
        timeline_->setLifetime(model_->device(), QCPRange(seconds(allocEvent), seconds(freed)));
        fromBlockMap_ = true;               // show where it was allocated, without moving the map away
        table_->goToEvent(allocEvent); // its alloc event: stack and timeline marker
        fromBlockMap_ = false;
        retention_->selectBlockAddress(t.addr[allocEvent]); // what keeps it alive, if a graph has it
    });
    connect(retention_, &RetentionPanel::blocksChosen, this,
            [this](int device, qint64 timeUs, const QVector<quint64>& addresses) {
                const DeviceTrace& t = session_->analysis()->trace(model_->device());
                if (t.device != device) return;
                // the map at the graph's moment, where those blocks are alive
                session_->setMoment(size_t(std::upper_bound(t.timeUs.begin(), t.timeUs.end(), timeUs) -
                                            t.timeUs.begin()));
                blockMap_->markAllocations({}); // one set of marks at a time: the chosen holder's blocks
                blockMap_->markAddresses({addresses.begin(), addresses.end()});
            });
    // one time axis: the memory map shows the timeline's visible range
    connect(timeline_, &TimelinePlot::visibleRangeChanged, memoryMap_, &MemoryMapView::setTimeRange);
    connect(memoryMap_, &MemoryMapView::cellClicked, this, [this](uint32_t applied, uint64_t address) {
        if (!session_->isOpen() || applied == 0) return;
        table_->goToEvent(applied - 1); // moves the cursor and the block map to that moment
        blockMap_->view()->setHighlightedAddress(address);
        showBlockMapTab();
    });
    connect(timeline_, &TimelinePlot::visibleRangeChanged, bands_, &AllocationBandsView::setTimeRange);
    connect(bands_, &AllocationBandsView::allocationClicked, this, [this](uint32_t allocEvent) {
        table_->goToEvent(allocEvent); // the session's selected event: stack, timeline marker, block map
    });
    connect(blockMap_, &BlockMapPanel::momentChanged, this, [this](size_t d, size_t applied) {
        if (applied) timeline_->setHighlightedEvent(session_->analysis()->trace(d).device, applied - 1, true);
    });
}

void MainWindow::stepMarkedEvent(bool forward) {
    const int64_t event = model_->nextMarked(table_->currentEvent(), forward);
    if (event < 0) return statusBar()->showMessage(tr("No events are marked: right-click a Leaks group"), 4000);
    table_->goToEvent(size_t(event));
}

void MainWindow::goToTime(double seconds) {
    if (!session_->isOpen() || model_->rowCount() == 0) return;
    // The stack, block map and timeline marker follow; the timeline reveals it.
    table_->goToEvent(model_->eventAtTime(seconds));
}

QString MainWindow::regionStatus() const {
    return regionLabel_->text();
}

} // namespace vs::ui
