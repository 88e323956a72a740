#pragma once
// Runs a function at most once per interval however often it is asked for: a live capture grows
// four times a second, and an O(events) background recomputation (memory map, fragmentation) need
// not follow every step; the latest state is computed when the interval ends.
#include <QObject>
#include <QTimer>

#include <functional>

namespace vs::ui {

class Throttle : public QObject {
  public:
    Throttle(int intervalMs, std::function<void()> run, QObject* parent)
        : QObject(parent), run_(std::move(run)) {
        timer_.setSingleShot(true);
        timer_.setInterval(intervalMs);
        connect(&timer_, &QTimer::timeout, this, [this] { run_(); });
    }
    void request() {
        if (!timer_.isActive()) timer_.start();
    }

  private:
    std::function<void()> run_;
    QTimer timer_;
};

} // namespace vs::ui
