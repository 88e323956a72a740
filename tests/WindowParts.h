#pragma once
// The main window's parts, found by their object names: the window lays them out and has no getters
// for them (tests reach its views as a user's click would, through the window's widget tree).
#include "live/LiveController.h"
#include "session/CaptureLoader.h"
#include "timeline/TimelinePlot.h"
#include "views/dialogs/WelcomePage.h"
#include "views/panels/BlockMapPanel.h"
#include "views/panels/EventFindBar.h"
#include "views/panels/EventTableView.h"
#include "views/panels/LeaksPanel.h"
#include "views/panels/RetentionPanel.h"
#include "views/panels/StackPane.h"
#include "views/timeline/AllocationBandsView.h"
#include "views/timeline/CompositionView.h"
#include "views/timeline/MemoryMapView.h"
#include "window/RegionSelector.h"

#include <QToolBar>

namespace vs::test {

template <class T> T* partOf(const QObject& window, const char* name) {
    T* part = window.findChild<T*>(QLatin1String(name));
    if (!part) qFatal("the window has no %s", name); // a renamed part: fail loudly, not with a null
    return part;
}

inline ui::TimelinePlot* timelineOf(const QObject& w) {
    return partOf<ui::TimelinePlot>(w, "timeline");
}
inline ui::EventTableView* eventTableOf(const QObject& w) {
    return partOf<ui::EventTableView>(w, "eventTable");
}
inline ui::EventFindBar* findBarOf(const QObject& w) {
    return partOf<ui::EventFindBar>(w, "findBar");
}
inline ui::StackPane* stackOf(const QObject& w) {
    return partOf<ui::StackPane>(w, "stackPane");
}
inline ui::LeaksPanel* leaksOf(const QObject& w) {
    return partOf<ui::LeaksPanel>(w, "leaksPanel");
}
inline ui::BlockMapPanel* blockMapOf(const QObject& w) {
    return partOf<ui::BlockMapPanel>(w, "blockMap");
}
inline ui::RetentionPanel* retentionOf(const QObject& w) {
    return partOf<ui::RetentionPanel>(w, "retentionPanel");
}
inline ui::CaptureLoader* loaderOf(const QObject& w) {
    return partOf<ui::CaptureLoader>(w, "loader");
}
inline ui::RegionSelector* regionsOf(const QObject& w) {
    return partOf<ui::RegionSelector>(w, "regionSelector");
}
inline ui::CompositionView* compositionOf(const QObject& w) {
    return partOf<ui::CompositionView>(w, "composition");
}
inline ui::MemoryMapView* memoryMapOf(const QObject& w) {
    return partOf<ui::MemoryMapView>(w, "memoryMap");
}
inline ui::AllocationBandsView* bandsOf(const QObject& w) {
    return partOf<ui::AllocationBandsView>(w, "allocationBands");
}
inline ui::LiveController* liveOf(const QObject& w) {
    return partOf<ui::LiveController>(w, "live");
}
inline ui::WelcomePage* welcomeOf(const QObject& w) {
    return partOf<ui::WelcomePage>(w, "welcomePage");
}
inline QToolBar* toolBarOf(const QObject& w) {
    return partOf<QToolBar>(w, "mainToolBar");
}

} // namespace vs::test
