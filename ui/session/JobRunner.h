#pragma once
// The one runner of background work in the GUI: loading, live updates, the leak diagnosis,
// retention and every view's heavy computation. Each job has a typed key (JobKey); at most one job
// of a key runs at a time and the newest request wins: a request while one runs sets the running
// job's cancel flag and waits to start when it ends (only the newest waiting request is kept); the
// replaced job's result is dropped. Results are immutable values delivered on the GUI thread to a
// receiver that still exists (a destroyed receiver gets nothing), never a half-done state. Work that
// throws delivers its message to `failed` (when given); a cancelled job delivers nothing and the
// runner says cancelled(key).
#include "session/JobControl.h"
#include "session/JobKey.h"

#include <QFuture>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <memory>

namespace vs::ui {

class JobRunner : public QObject {
    Q_OBJECT
  public:
    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override; // cancels and waits: no job outlives its runner

    template <class R>
    void run(JobKey key, QObject* receiver, std::function<R(const JobControl&)> work,
             std::function<void(const R&)> deliver, std::function<void(const QString&)> failed = {}) {
        QPointer<QObject> to(receiver);
        auto task = [to, work = std::move(work), deliver = std::move(deliver)](const JobControl& job) {
            auto result = std::make_shared<const R>(work(job));
            return std::function<void()>([to, result, deliver] {
                if (to) deliver(*result);
            });
        };
        schedule(key, std::move(task), [to, failed = std::move(failed)](const QString& message) {
            if (to && failed) failed(message);
        });
    }
    void cancel(JobKey key); // the running job's flag is set; a waiting one is dropped
    void cancelAll();
    // Waits for the jobs of `key` (or all) and delivers their results, including jobs a delivery
    // starts (tests, headless screenshots, Reset of a live session).
    void waitFor(JobKey key);
    void waitForAll();
    bool busy(JobKey key) const;
    bool busy() const;

  signals:
    void busyChanged(bool busy);
    void progress(vs::ui::JobKey key, int percent);
    void cancelled(vs::ui::JobKey key);

  private:
    friend class JobControl;
    // Runs on a pool thread; returns what to do on the GUI thread with the result.
    using Task = std::function<std::function<void()>(const JobControl&)>;
    using Failure = std::function<void(const QString&)>;
    struct Job {
        uint64_t generation = 0;
        std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);
        Task task;
        Failure failed;
        QFuture<void> future;
    };
    struct Slot {
        std::shared_ptr<Job> running, waiting;
    };
    struct Outcome {
        std::function<void()> deliver;
        QString error;
        bool threw = false;
    };
    void schedule(JobKey key, Task task, Failure failed);
    void start(JobKey key, std::shared_ptr<Job> job);
    void finished(JobKey key, uint64_t generation, const Outcome& outcome);
    void reportProgress(JobKey key, uint64_t generation, int percent);
    void waitUntil(const std::function<bool()>& idle);

    QHash<JobKey, Slot> slots_;
    uint64_t nextGeneration_ = 1;
    int running_ = 0;
};

} // namespace vs::ui
