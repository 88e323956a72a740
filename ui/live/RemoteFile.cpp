#include "live/RemoteFile.h"

#include "live/StartSsh.h"

#include "io/MemoryBudget.h"
#include "io/VscapStream.h"
#include "util/Format.h"
#include "util/PrivatePath.h"
#include "util/RemoteAnswer.h"
#include "util/RemoteScripts.h"
#include "util/SshCommand.h"
#include "util/TerminalText.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <unistd.h>

namespace vs::ui {

namespace {
constexpr qsizetype kMaxPreamble = 64 << 10; // what a chatty login script may print before our marker
constexpr uint64_t kMaxRemoteFile = uint64_t(1) << 40; // a larger "size" is no capture: refused
} // namespace

RemoteFile::RemoteFile(QObject* parent) : QObject(parent) {}

RemoteFile::~RemoteFile() {
    if (process_) process_->disconnect(this), process_->kill(), process_->waitForFinished(2000);
    discardCopy();
}

QByteArray RemoteFile::bytes() const {
    return stream_ ? QByteArray::fromStdString(stream_->complete()) : QByteArray();
}

QByteArray RemoteFile::bytesFrom(qsizetype offset) const {
    if (!stream_ || size_t(offset) >= stream_->complete().size()) return {};
    const std::string& all = stream_->complete();
    return QByteArray(all.data() + offset, qsizetype(all.size()) - offset);
}

void RemoteFile::open(const SshTarget& target) {
    if (process_)
        process_->disconnect(this), process_->kill(), process_->waitForFinished(2000),
            process_->deleteLater();
    discardCopy();
    target_ = target;
    const bool follow =
        QString::fromStdString(target.path).endsWith(QStringLiteral(".vscap"), Qt::CaseInsensitive);
    stream_ = follow ? std::make_unique<vscap::StreamAssembler>() : nullptr;
    started_ = stopping_ = false;
    preamble_.clear();
    received_ = 0, total_ = -1;
    std::string input;
    try {
        input = remoteInput(readFileScript(target.path, follow));
    } catch (const std::exception& e) {
        return emit failed(tr("Cannot read %1: %2").arg(url(), QString::fromStdString(e.what())));
    }
    process_ = new QProcess(this);
    connect(process_, &QProcess::readyReadStandardOutput, this, &RemoteFile::onOutput);
    connect(process_, &QProcess::finished, this, &RemoteFile::onFinished);
    connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) emit failed(cannotRunSsh(process_));
    });
    startSsh(process_, sshArgv(target), input);
}

void RemoteFile::cancel() {
    if (!active()) return;
    stopping_ = true;
    process_->kill();
    emit ended(tr("Stopped reading %1: %2 received, kept")
                   .arg(url(), QString::fromStdString(humanBytes(received_))));
}

bool RemoteFile::takePreamble(QByteArray& data) {
    preamble_ += data;
    data.clear();
    for (qsizetype eol; (eol = preamble_.indexOf('\n')) >= 0;) {
        const auto m = parseRemoteMarker(std::string_view(preamble_.constData(), size_t(eol)));
        const QByteArray line = preamble_.left(eol);
        preamble_.remove(0, eol + 1);
        if (m && m->first == "size") {
            const auto size = parseRemoteSize(m->second, kMaxRemoteFile);
            if (!size) {
                stopping_ = true, process_->kill();
                emit failed(tr("%1 declared an impossible size for the file (%2)")
                                .arg(host(), QString::fromStdString(terminalText(m->second.substr(0, 40)))));
                return false;
            }
            total_ = qint64(*size);
            if (!stream_ && overBudget(*size)) return false; // a followed file stops there instead
            data = std::exchange(preamble_, {});
            return started_ = true;
        }
    }
    if (preamble_.size() > kMaxPreamble) {
        stopping_ = true, process_->kill();
        emit failed(tr("%1 sent no file (a login script printed too much?)").arg(url()));
    }
    return false;
}

// The host alone decides how much comes: a copy larger than --max-memory is not made, and a
// followed .vscap (held here as it grows) stops there, what arrived kept.
bool RemoteFile::overBudget(uint64_t bytes) {
    const uint64_t budget = MemoryBudget::processDefault();
    if (bytes <= budget) return false;
    stopping_ = true, process_->kill();
    const QString limit = QString::fromStdString(MemoryBudget::describe(budget));
    if (stream_ && started_)
        emit failed(tr("Stopped following %1 at %2 (--max-memory): what arrived is kept").arg(url(), limit));
    else
        emit failed(tr("%1 declared %2 bytes for %3, more than --max-memory lets a load take (%4): not "
                       "copied; raise --max-memory if you trust the file")
                        .arg(host(), QString::number(bytes), url(), limit));
    return true;
}

void RemoteFile::onOutput() {
    QByteArray data = process_->readAllStandardOutput();
    if (stopping_ || (!started_ && !takePreamble(data))) return;
    if (!stream_ && data.size() > total_ - received_) data.truncate(total_ - received_); // as declared
    const uint64_t budget = MemoryBudget::processDefault();
    if (stream_ && uint64_t(received_) + uint64_t(data.size()) > budget) {
        data.truncate(qsizetype(budget - uint64_t(received_))); // what fits is kept
        received_ += data.size();
        if (!data.isEmpty()) feed(data);
        if (!stopping_) overBudget(budget + 1);
        return;
    }
    received_ += data.size();
    if (!data.isEmpty()) feed(data);
    emit progress(received_, total_);
    if (!stream_ && !stopping_ && received_ == total_) finishCopy(); // what more comes is not read
}

void RemoteFile::finishCopy() {
    stopping_ = true;
    process_->kill();
    if (!copy_) feed({}); // an empty file (or one emptied since) is still a copy
    if (!copy_ || !copy_->isOpen()) return;
    copy_->close();
    emit copied(copyPath_); // a QFile opened on a descriptor has no name
}

void RemoteFile::feed(const QByteArray& data) {
    if (!stream_) {
        if (!copy_) {
            std::string error;
            copyDir_ = QString::fromStdString(
                makePrivateTempDir(QDir::tempPath().toStdString(), "vramscope-remote-"));
            const QString name = QFileInfo(QString::fromStdString(target_.path)).fileName();
            const bool none = name.isEmpty() || name == QLatin1String(".") || name == QLatin1String("..");
            copyPath_ = QDir(copyDir_).filePath(none ? QStringLiteral("remote") : name); // never outside it
            const int fd = createExclusive(QFile::encodeName(copyPath_).toStdString(), error);
            copy_ = std::make_unique<QFile>();
            if (fd < 0 || !copy_->open(fd, QIODevice::WriteOnly, QFileDevice::AutoCloseHandle)) {
                if (fd >= 0) ::close(fd);
                stopping_ = true, process_->kill();
                emit failed(
                    tr("Cannot write a local copy of %1: %2").arg(url(), QString::fromStdString(error)));
                return;
            }
        }
        copy_->write(data);
        return;
    }
    try {
        if (stream_->feed({data.constData(), size_t(data.size())})) emit dataArrived();
    } catch (const std::exception& e) {
        stopping_ = true, process_->kill();
        emit failed(tr("Stopped reading %1: %2").arg(url(), QString::fromStdString(e.what())));
        return;
    }
    if (stream_->ended()) finish(); // the recorder's end record: nothing more will be written
}

void RemoteFile::finish() {
    stopping_ = true;
    process_->kill();
    emit ended(tr("Read %1 (%2): complete").arg(url(), QString::fromStdString(humanBytes(received_))));
}

void RemoteFile::onFinished(int code, QProcess::ExitStatus status) {
    if (stopping_) return;
    onOutput(); // the last bytes may not have been announced by readyRead
    if (stopping_) return;
    if (code == 0 && status == QProcess::NormalExit && started_) {
        if (!stream_) return finishCopy(); // the file shrank since its size was said: what there is
        emit ended(tr("Read %1 (%2)").arg(url(), QString::fromStdString(humanBytes(received_))));
        return;
    }
    emit failed(sshFailure(target_, code, status, stderrTail(process_)));
}

void RemoteFile::discardCopy() {
    copy_.reset();
    if (!copyDir_.isEmpty()) QDir(copyDir_).removeRecursively();
    copyDir_.clear();
}

} // namespace vs::ui
