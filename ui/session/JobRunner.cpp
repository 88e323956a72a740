#include "session/JobRunner.h"

#include "util/Cancelled.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>
#include <new>

namespace vs::ui {

bool JobControl::progress(double fraction) const {
    const int percent = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 100);
    if (lastPercent_.exchange(percent) != percent) { // queued to the GUI thread, not once per call
        JobRunner* runner = runner_;
        const JobKey key = key_;
        const uint64_t generation = generation_;
        QMetaObject::invokeMethod(
            runner, [runner, key, generation, percent] { runner->reportProgress(key, generation, percent); },
            Qt::QueuedConnection);
    }
    return !cancelled();
}

JobRunner::JobRunner(QObject* parent) : QObject(parent) {
    qRegisterMetaType<JobKey>("vs::ui::JobKey");
}

JobRunner::~JobRunner() {
    cancelAll();
    for (auto& slot : slots_)
        if (slot.running) slot.running->future.waitForFinished();
}

void JobRunner::schedule(JobKey key, Task task, Failure failed) {
    auto job = std::make_shared<Job>();
    job->generation = nextGeneration_++;
    job->task = std::move(task);
    job->failed = std::move(failed);
    Slot& slot = slots_[key];
    if (slot.running) { // the newest request wins: it waits for the running one to stop
        slot.running->cancel->store(true);
        slot.waiting = std::move(job);
        return;
    }
    start(key, std::move(job));
}

void JobRunner::start(JobKey key, std::shared_ptr<Job> job) {
    if (running_++ == 0) emit busyChanged(true);
    slots_[key].running = job;
    const uint64_t generation = job->generation;
    job->future = QtConcurrent::run([this, key, generation, cancel = job->cancel, task = job->task] {
        const JobControl control(this, key, generation, cancel);
        Outcome outcome;
        try {
            outcome.deliver = task(control);
        } catch (const Cancelled&) { // nothing to show
        } catch (const std::bad_alloc&) {
            outcome.threw = true, outcome.error = tr("Not enough memory for this.");
        } catch (const std::exception& e) {
            outcome.threw = true, outcome.error = QString::fromUtf8(e.what());
        } catch (...) {
            outcome.threw = true, outcome.error = tr("Unknown error.");
        }
        // The destructor waits for this thread, so the runner is alive here; the queued call is
        // dropped by Qt if the runner is gone when the GUI thread gets to it.
        QMetaObject::invokeMethod(
            this, [this, key, generation, outcome] { finished(key, generation, outcome); },
            Qt::QueuedConnection);
    });
}

void JobRunner::finished(JobKey key, uint64_t generation, const Outcome& outcome) {
    Slot& slot = slots_[key];
    const std::shared_ptr<Job> job = slot.running;
    --running_;
    if (job && job->generation == generation) {
        slot.running.reset();
        if (slot.waiting) {
            start(key, std::exchange(slot.waiting, nullptr)); // the replaced job's result is stale
        } else if (job->cancel->load()) {
            emit cancelled(key);
        } else if (outcome.threw) {
            if (job->failed) job->failed(outcome.error);
        } else if (outcome.deliver) {
            outcome.deliver();
        }
    }
    if (running_ == 0) emit busyChanged(false);
}

void JobRunner::reportProgress(JobKey key, uint64_t generation, int percent) {
    const auto it = slots_.constFind(key);
    if (it != slots_.cend() && it->running && it->running->generation == generation &&
        !it->running->cancel->load())
        emit progress(key, percent);
}

void JobRunner::cancel(JobKey key) {
    auto it = slots_.find(key);
    if (it == slots_.end()) return;
    it->waiting.reset();
    if (it->running) it->running->cancel->store(true);
}

void JobRunner::cancelAll() {
    for (auto it = slots_.begin(); it != slots_.end(); ++it) cancel(it.key());
}

// Bounded: a lost delivery must not hang a screenshot or a test.
void JobRunner::waitUntil(const std::function<bool()>& idle) {
    for (int round = 0; round < 100 && !idle(); ++round) {
        for (auto& slot : slots_)
            if (slot.running) slot.running->future.waitForFinished();
        QCoreApplication::processEvents(); // the queued deliveries, which may start more jobs
    }
}

void JobRunner::waitFor(JobKey key) {
    waitUntil([this, key] { return !busy(key); });
}

void JobRunner::waitForAll() {
    waitUntil([this] { return !busy(); });
}

bool JobRunner::busy(JobKey key) const {
    const auto it = slots_.constFind(key);
    return it != slots_.cend() && (it->running || it->waiting);
}

bool JobRunner::busy() const {
    return running_ > 0;
}

} // namespace vs::ui
