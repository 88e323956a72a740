#pragma once
// Opens a capture off the GUI thread (a JobRunner job, JobKey::Load), reporting progress, and can
// be cancelled. It has its own runner: a load in flight survives the session opening another
// capture (a live refresh) and is not cancelled by it.
#include "analysis/CaptureAnalysis.h"
#include "load/OpenAnalysis.h"
#include "session/JobRunner.h"

#include <QObject>
#include <QString>

#include <memory>

namespace vs::ui {

using AnalysisPtr = std::shared_ptr<const CaptureAnalysis>;

class CaptureLoader : public QObject {
    Q_OBJECT
  public:
    explicit CaptureLoader(QObject* parent = nullptr);
    // `cudaLevel`: the CUDA level of a recording with both levels (record --native) instead.
    void open(const QString& path, bool cudaLevel = false);
    // Only a window of the file, or the intact part of a damaged .vscap; otherwise as open().
    void openWith(const QString& path, const OpenOptions& options);
    void cancel();
    bool busy() const { return jobs_.busy(JobKey::Load); }
    // Blocking variant for headless use (--screenshot) and tests. Throws LoadError.
    static AnalysisPtr openNow(const QString& path, const OpenOptions& options = {});

  signals:
    void progress(int percent);
    void loaded(const QString& path, vs::ui::AnalysisPtr analysis);
    void failed(const QString& path, const QString& message);
    // A damaged .vscap (DamagedCapture): the chunks before the damage can be opened (openWith).
    void damaged(const QString& path, const QString& message);
    void cancelled(const QString& path);

  private:
    struct Outcome {
        AnalysisPtr analysis;
        QString error;
        bool damaged = false;
    };
    void deliver(const QString& path, const Outcome& outcome);
    OpenOptions next_; // for the next load only
    JobRunner jobs_;
    QString path_; // of the load in flight
};

} // namespace vs::ui

Q_DECLARE_METATYPE(vs::ui::AnalysisPtr)
