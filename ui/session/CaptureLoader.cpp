#include "session/CaptureLoader.h"
#include "load/OpenAnalysis.h"
#include "load/OpenCudaLevel.h"

#include "io/DamagedCapture.h"

namespace vs::ui {

CaptureLoader::CaptureLoader(QObject* parent) : QObject(parent), jobs_(this) {
    qRegisterMetaType<AnalysisPtr>();
    connect(&jobs_, &JobRunner::progress, this, [this](JobKey, int percent) { emit progress(percent); });
    connect(&jobs_, &JobRunner::cancelled, this, [this] { emit cancelled(path_); });
}

void CaptureLoader::open(const QString& path, bool cudaLevel) {
    path_ = path;
    const OpenOptions open = std::exchange(next_, {});
    jobs_.run<Outcome>(
        JobKey::Load, this,
        [path, cudaLevel, open](const JobControl& job) -> Outcome {
            AnalysisOptions options;
            options.cancel = &job.cancel();
            options.progress = [&job](double f) { return job.progress(f); };
            try {
                return {cudaLevel ? openCudaLevel(path.toStdString(), options)
                                  : openAnalysis(path.toStdString(), options, open),
                        {}};
            } catch (const DamagedCapture& e) {
                return {nullptr, QString::fromUtf8(e.what()), true};
            } catch (const LoadError& e) {
                return {nullptr, QString::fromUtf8(e.what())};
            }
        },
        [this, path](const Outcome& o) { deliver(path, o); },
        [this, path](const QString& message) { emit failed(path, message); }); // out of memory, ...
}

void CaptureLoader::deliver(const QString& path, const Outcome& o) {
    if (o.analysis)
        emit loaded(path, o.analysis);
    else if (o.damaged)
        emit damaged(path, o.error);
    else
        emit failed(path, o.error);
}

void CaptureLoader::openWith(const QString& path, const OpenOptions& options) {
    next_ = options; // taken by the load open() starts
    open(path);
}

void CaptureLoader::cancel() {
    jobs_.cancel(JobKey::Load);
}

AnalysisPtr CaptureLoader::openNow(const QString& path, const OpenOptions& options) {
    return openAnalysis(path.toStdString(), {}, options);
}

} // namespace vs::ui
