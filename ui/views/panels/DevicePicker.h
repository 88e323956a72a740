#pragma once
// "Device: [device 1 (NVIDIA H200) — 12,345 events]" above the event list: which device the event
// list, Leaks, Block map, Stack and memory map show. Follows the session (a click in a lane changes
// it too); hidden when the capture has one device.
#include <QWidget>

class QComboBox;

namespace vs::ui {

class Session;

class DevicePicker : public QWidget {
    Q_OBJECT
  public:
    DevicePicker(Session* session, QWidget* parent);
    QComboBox* box() const { return box_; }

  private:
    void fill();

    Session* session_;
    QComboBox* box_;
};

} // namespace vs::ui
