#include "session/CaptureLoader.h"
#include "load/OpenAnalysis.h"

#include "io/LoadError.h"

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
        else
            emit failed(path_, o.error);
    });
}

CaptureLoader::~CaptureLoader() {
    cancel();
    watcher_.waitForFinished();
}

void CaptureLoader::open(const QString& path) {
    cancel();
    watcher_.waitForFinished();
    path_ = path;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    auto flag = cancel_;
    QPointer<CaptureLoader> self(this);
    watcher_.setFuture(QtConcurrent::run([path, flag, self]() -> Outcome {
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
            return {openAnalysis(path.toStdString(), options), {}, false};
        } catch (const Cancelled&) {
            return {nullptr, {}, true};
        } catch (const LoadError& e) {
            return {nullptr, QString::fromUtf8(e.what()), false};
        } catch (const std::bad_alloc&) {
            return {nullptr, QStringLiteral("Not enough memory to open this capture."), false};
        } catch (const std::exception& e) {
            return {nullptr, QString::fromUtf8(e.what()), false};
        }
    }));
}

void CaptureLoader::cancel() {
    if (cancel_) cancel_->store(true);
}

AnalysisPtr CaptureLoader::openNow(const QString& path) {
    return openAnalysis(path.toStdString());
}

} // namespace vs::ui
