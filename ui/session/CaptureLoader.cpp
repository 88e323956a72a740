#include "session/CaptureLoader.h"
#include "load/OpenAnalysis.h"
#include "load/OpenCudaLevel.h"

#include "io/DamagedCapture.h"

#include <QMetaObject>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace vs::ui {

CaptureLoader::CaptureLoader(QObject* parent) : QObject(parent) {
    qRegisterMetaType<AnalysisPtr>();
    connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, [this] {
        const Outcome o = watcher_.result();
        if (o.cancelled)
            emit cancelled(path_);
        else if (o.analysis)
            emit loaded(path_, o.analysis);
        else if (o.damaged)
            emit damaged(path_, o.error);
        else
            emit failed(path_, o.error);
    });
}

CaptureLoader::~CaptureLoader() {
    cancel();
    watcher_.waitForFinished();
}

void CaptureLoader::open(const QString& path, bool cudaLevel) {
    cancel();
    watcher_.waitForFinished();
    path_ = path;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    auto flag = cancel_;
    QPointer<CaptureLoader> self(this);
    const OpenOptions open = std::exchange(next_, {});
    watcher_.setFuture(QtConcurrent::run([path, flag, self, cudaLevel, open]() -> Outcome {
        AnalysisOptions options;
        options.cancel = flag.get();
        int last = -1;
        options.progress = [&](double f) {
            const int pct = static_cast<int>(f * 100);
            if (pct != last && self) {
                last = pct;
                QMetaObject::invokeMethod(
                    self,
                    [self, pct] {
                        if (self) emit self->progress(pct);
                    },
                    Qt::QueuedConnection);
            }
            return !flag->load();
        };
        try {
            return {cudaLevel ? openCudaLevel(path.toStdString(), options) : openAnalysis(path.toStdString(), options, open),
                    {}, false};
        } catch (const Cancelled&) {
            return {nullptr, {}, true};
        } catch (const DamagedCapture& e) {
            return {nullptr, QString::fromUtf8(e.what()), false, true};
        } catch (const LoadError& e) {
            return {nullptr, QString::fromUtf8(e.what()), false};
        } catch (const std::bad_alloc&) {
            return {nullptr, QStringLiteral("Not enough memory to open this capture."), false};
        } catch (const std::exception& e) {
            return {nullptr, QString::fromUtf8(e.what()), false};
        }
    }));
}

void CaptureLoader::openWith(const QString& path, const OpenOptions& options) {
    next_ = options; // taken by the load open() starts
    open(path);
}

void CaptureLoader::cancel() {
    if (cancel_) cancel_->store(true);
}

AnalysisPtr CaptureLoader::openNow(const QString& path, const OpenOptions& options) {
    return openAnalysis(path.toStdString(), {}, options);
}

} // namespace vs::ui
