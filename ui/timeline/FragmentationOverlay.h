#pragma once
// The fragmentation overlay of the timeline: per device, the largest free block, the free fragments
// and the moments where a request of the chosen size (remembered setting, 20 MiB by default) would
// have needed a new segment. Computed by the session's runner when a capture opens.
#include "analysis/composition/Fragmentation.h"

#include <QObject>

#include <vector>

namespace vs::ui {

class Session;
class Throttle;
class TimelinePlot;

class FragmentationOverlay : public QObject {
    Q_OBJECT
  public:
    FragmentationOverlay(Session* session, TimelinePlot* timeline, QObject* parent);
    void recompute(); // also after the request size changed

  private:
    void show(const std::vector<std::vector<FragmentationSample>>& all);

    Session* session_;
    TimelinePlot* timeline_;
    Throttle* live_ = nullptr;
    std::vector<std::vector<FragmentationSample>> shown_; // drawn again on lanes given to other devices
};

} // namespace vs::ui
