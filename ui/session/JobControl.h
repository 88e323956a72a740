#pragma once
// What a background job's work sees of its runner: whether it should stop, and a way to report how
// far it is. Both are safe to use from the worker thread; progress reaches the GUI thread as
// JobRunner::progress, at most once per percent.
#include "session/JobKey.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>

namespace vs::ui {

class JobRunner;

class JobControl {
  public:
    JobControl(JobRunner* runner, JobKey key, uint64_t generation, std::shared_ptr<std::atomic<bool>> cancel)
        : runner_(runner), key_(key), generation_(generation), cancel_(std::move(cancel)) {}
    // The flag core's cancellable functions poll (they take `const std::atomic<bool>*`).
    const std::atomic<bool>& cancel() const { return *cancel_; }
    bool cancelled() const { return cancel_->load(); }
    // `fraction` in [0, 1]; returns false once the job was cancelled (core's progress callbacks stop
    // their work on false).
    bool progress(double fraction) const;

  private:
    JobRunner* runner_;
    JobKey key_;
    uint64_t generation_;
    std::shared_ptr<std::atomic<bool>> cancel_;
    mutable std::atomic<int> lastPercent_{-1}; // a loader may report from more than one thread
};

} // namespace vs::ui
