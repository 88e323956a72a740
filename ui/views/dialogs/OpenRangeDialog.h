#pragma once
// File > Open Range...: a capture file and the window of it to load (seconds since its first event),
// for captures too big to open whole; the allocator state at the window's start is still exact.
#include "analysis/replay/CaptureWindow.h"

#include <QDialog>
#include <optional>

class QDoubleSpinBox;
class QLineEdit;
class QCheckBox;

namespace vs::ui {

class OpenRangeDialog : public QDialog {
    Q_OBJECT
  public:
    OpenRangeDialog(const QString& path, const QString& filter, QWidget* parent = nullptr);
    QString path() const;
    TimeWindow window() const;
    // Asks; nullopt when cancelled. `path` starts filled in (the open capture, or empty).
    static std::optional<std::pair<QString, TimeWindow>> ask(QWidget* parent, const QString& path,
                                                             const QString& filter);

  private:
    void updateOk();
    QLineEdit* path_;
    QDoubleSpinBox* from_;
    QDoubleSpinBox* to_;
    QCheckBox* toEnd_;
    class QPushButton* ok_;
};

} // namespace vs::ui
