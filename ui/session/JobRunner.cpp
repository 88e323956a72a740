#include "session/JobRunner.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace vs::ui {

JobRunner::JobRunner(QObject* parent) : QObject(parent) {}

JobRunner::~JobRunner() {
    cancelAll();
    for (auto& job : jobs_) job->future.waitForFinished();
}

std::shared_ptr<JobRunner::Job> JobRunner::begin(const QString& key) {
    if (auto old = jobs_.value(key)) old->cancel->store(true); // the newest request wins
    auto job = std::make_shared<Job>();
    job->generation = nextGeneration_++;
    jobs_.insert(key, job);
    return job;
}

void JobRunner::start(const QString& key, const std::shared_ptr<Job>& job,
                      std::function<std::function<void()>()> work) {
    if (running_++ == 0) emit busyChanged(true);
    QPointer<JobRunner> self(this);
    const uint64_t generation = job->generation;
    job->future = QtConcurrent::run([self, key, generation, work = std::move(work)] {
        std::function<void()> deliver;
        try {
            deliver = work();
        } catch (...) { // cancelled or failed: nothing to show
        }
        if (self) // queued to the GUI thread; dropped there if a newer job replaced this one
            QMetaObject::invokeMethod(
                self, [self, key, generation, deliver] { self->finished(key, generation, deliver); },
                Qt::QueuedConnection);
    });
}

void JobRunner::finished(const QString& key, uint64_t generation, const std::function<void()>& deliver) {
    if (--running_ == 0) emit busyChanged(false);
    const auto job = jobs_.value(key);
    if (!job || job->generation != generation || job->cancel->load() || !deliver) return;
    deliver();
}

void JobRunner::cancel(const QString& key) {
    if (auto job = jobs_.value(key)) job->cancel->store(true);
}

void JobRunner::cancelAll() {
    for (auto& job : jobs_) job->cancel->store(true);
}

void JobRunner::waitForAll() {
    for (int round = 0; round < 10 && running_ > 0; ++round) { // a delivery may start another job
        for (auto& job : jobs_) job->future.waitForFinished();
        QCoreApplication::processEvents(); // the queued deliveries
    }
}

bool JobRunner::busy() const {
    return running_ > 0;
}

} // namespace vs::ui
