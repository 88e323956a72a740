#include "views/panels/DevicePicker.h"

#include "session/Session.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>

namespace vs::ui {

DevicePicker::DevicePicker(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    box_ = new QComboBox(this);
    box_->setObjectName(QStringLiteral("deviceBox"));
    box_->setToolTip(
        tr("The device shown in the event list, Leaks, Block map and Stack; a click on a device's "
           "lane on the timeline selects it too"));
    auto* label = new QLabel(tr("&Device:"), this);
    label->setBuddy(box_);
    layout->addWidget(label);
    layout->addWidget(box_);
    layout->addStretch(1);
    setVisible(false);
    connect(box_, &QComboBox::activated, session_, [this](int i) { session_->setDevice(size_t(i)); });
    connect(session_, &Session::opened, this, &DevicePicker::fill);
    connect(session_, &Session::extended, this, [this] { // the event counts grew
        fill();
        box_->setCurrentIndex(int(session_->device()));
    });
    connect(session_, &Session::deviceChanged, box_, [this](size_t d) { box_->setCurrentIndex(int(d)); });
}

void DevicePicker::fill() {
    const auto a = session_->analysis();
    box_->clear();
    for (size_t d = 0; d < a->deviceCount(); ++d) {
        const DeviceTrace& t = a->trace(d);
        QString name = QString::fromStdString(deviceName(t.device));
        for (const auto& info : a->capture().deviceInfo)
            if (info.device == t.device && !info.name.empty())
                name += QStringLiteral(" (%1)").arg(QString::fromStdString(info.name));
        box_->addItem(name + tr(" \u2014 %L1 events").arg(t.eventCount()));
    }
    setVisible(a->deviceCount() > 1);
}

} // namespace vs::ui
