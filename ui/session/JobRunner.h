#pragma once
// The one runner of a session's background work. Each job has a key ("fragmentation",
// "memory map", "retention"); a newer request for a key wins: the older job's cancel flag is set and
// its result dropped. Results are immutable values delivered on the GUI thread, never a half-done
// state. Work throwing (Cancelled, LoadError) delivers nothing.
#include <QFuture>
#include <QHash>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

namespace vs::ui {

class JobRunner : public QObject {
    Q_OBJECT
  public:
    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override; // cancels and waits: no job outlives its session

    template <class R>
    void run(const QString& key, std::function<R(const std::atomic<bool>& cancel)> work,
             std::function<void(const R&)> deliver) {
        auto job = begin(key);
        start(key, job, [job, work = std::move(work), deliver = std::move(deliver)]() -> std::function<void()> {
            auto result = std::make_shared<const R>(work(*job->cancel));
            return [result, deliver] { deliver(*result); };
        });
    }
    void cancel(const QString& key);
    void cancelAll();
    // Waits for every running job and delivers their results (tests, headless screenshots).
    void waitForAll();
    bool busy() const;

  signals:
    void busyChanged(bool busy);

  private:
    struct Job {
        uint64_t generation = 0;
        std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);
        QFuture<void> future;
    };
    std::shared_ptr<Job> begin(const QString& key);
    // `work` runs on a pool thread and returns what to do on the GUI thread with its result.
    void start(const QString& key, const std::shared_ptr<Job>& job, std::function<std::function<void()>()> work);
    void finished(const QString& key, uint64_t generation, const std::function<void()>& deliver);

    QHash<QString, std::shared_ptr<Job>> jobs_;
    uint64_t nextGeneration_ = 1;
    int running_ = 0;
};

} // namespace vs::ui
