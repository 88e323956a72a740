#include "live/FileFollower.h"

#include "io/VscapStream.h"

namespace vs::ui {

FileFollower::FileFollower(QObject* parent) : QObject(parent) {
    timer_.setInterval(150);
    connect(&timer_, &QTimer::timeout, this, &FileFollower::poll);
}

FileFollower::~FileFollower() = default;

void FileFollower::follow(const QString& path) {
    file_.close();
    file_.setFileName(path);
    stream_ = std::make_unique<vscap::StreamAssembler>();
    timer_.start();
}

void FileFollower::stop() {
    poll();
    timer_.stop();
    file_.close();
}

QByteArray FileFollower::bytes() const {
    return stream_ ? QByteArray::fromStdString(stream_->complete()) : QByteArray();
}

void FileFollower::poll() {
    if (!file_.isOpen() && !file_.open(QIODevice::ReadOnly)) return; // not created yet
    const QByteArray more = file_.readAll();
    if (more.isEmpty()) return;
    try {
        if (stream_->feed({more.constData(), size_t(more.size())})) emit dataArrived();
    } catch (const std::exception& e) {
        timer_.stop();
        emit statusChanged(
            tr("Stopped following %1: %2").arg(file_.fileName(), QString::fromStdString(e.what())));
    }
}

} // namespace vs::ui
