#pragma once
// Opens a capture off the GUI thread, reporting progress, and can be cancelled.
#include "analysis/CaptureAnalysis.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace vs::ui {

using AnalysisPtr = std::shared_ptr<const CaptureAnalysis>;

class CaptureLoader : public QObject {
    Q_OBJECT
  public:
    explicit CaptureLoader(QObject* parent = nullptr);
    ~CaptureLoader() override;
    void open(const QString& path);
    void cancel();
    bool busy() const { return watcher_.isRunning(); }
    // Blocking variant for headless use (--screenshot) and tests. Throws LoadError.
    static AnalysisPtr openNow(const QString& path);

  signals:
    void progress(int percent);
    void loaded(const QString& path, vs::ui::AnalysisPtr analysis);
    void failed(const QString& path, const QString& message);
    void cancelled(const QString& path);

  private:
    struct Outcome {
        AnalysisPtr analysis;
        QString error;
        bool cancelled = false;
    };
    QFutureWatcher<Outcome> watcher_;
    std::shared_ptr<std::atomic<bool>> cancel_;
    QString path_;
};

} // namespace vs::ui

Q_DECLARE_METATYPE(vs::ui::AnalysisPtr)
