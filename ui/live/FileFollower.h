#pragma once
// Follows a .vscap file another process is still writing (Capture > Launch Program: the CUPTI agent
// writes its file; the view follows it): reads what was appended a few times a second and keeps the
// complete chunks, validated as they come.
#include <QByteArray>
#include <QFile>
#include <QObject>
#include <QTimer>

#include <memory>

namespace vs::vscap {
class StreamAssembler;
}

namespace vs::ui {

class FileFollower : public QObject {
    Q_OBJECT
  public:
    explicit FileFollower(QObject* parent = nullptr);
    ~FileFollower() override;
    void follow(const QString& path);
    void stop(); // reads what is left, then stops
    bool active() const { return timer_.isActive(); }
    QByteArray bytes() const;
    QString path() const { return file_.fileName(); }

  signals:
    void dataArrived();
    void statusChanged(const QString& text);

  private:
    void poll();
    QFile file_;
    QTimer timer_;
    std::unique_ptr<vscap::StreamAssembler> stream_;
};

} // namespace vs::ui
