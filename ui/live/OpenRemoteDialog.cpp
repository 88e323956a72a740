#include "live/OpenRemoteDialog.h"

#include "live/RemoteDialogForm.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>

namespace vs::ui {

OpenRemoteDialog::OpenRemoteDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Open Remote Capture"));
    QFormLayout* form =
        remoteDialogForm(this,
                         tr("The file is read through your own <b>ssh</b>: your keys, ssh-agent and "
                            "~/.ssh/config, without a password prompt. A .vscap file still being "
                            "written is followed: the view grows as the program records."),
                         host_);
    path_ = new QLineEdit(this);
    path_->setPlaceholderText(tr("/home/me/runs/train.vscap or ~/runs/train.vscap"));
    form->addRow(tr("&File on the host:"), path_);
    url_ = new QLabel(this);
    url_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(tr("Address:"), url_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    ok_ = buttons->button(QDialogButtonBox::Open);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout()->addWidget(buttons);
    path_->setText(QSettings().value(QStringLiteral("remote/path")).toString());
    connect(host_, &QLineEdit::textChanged, this, &OpenRemoteDialog::update);
    connect(path_, &QLineEdit::textChanged, this, &OpenRemoteDialog::update);
    update();
    resize(560, sizeHint().height());
}

std::optional<SshTarget> OpenRemoteDialog::target() const {
    std::string error;
    auto t = parseSshHost(host_->text().trimmed().toStdString(), error);
    QString path = path_->text().trimmed();
    if (!t || path.isEmpty() || !(path.startsWith('/') || path.startsWith(QStringLiteral("~/"))))
        return std::nullopt;
    t->path = path.toStdString();
    return parseSshUrl(t->url(), error); // the same checks as an ssh:// argument
}

void OpenRemoteDialog::update() {
    const auto t = target();
    url_->setText(t ? QString::fromStdString(t->url()) : tr("(a host, and an absolute or ~/ path)"));
    ok_->setEnabled(t.has_value());
}

std::optional<SshTarget> OpenRemoteDialog::ask(QWidget* parent) {
    OpenRemoteDialog d(parent);
    if (d.exec() != QDialog::Accepted) return std::nullopt;
    rememberHost(d.host_);
    QSettings().setValue(QStringLiteral("remote/path"), d.path_->text().trimmed());
    return d.target();
}

} // namespace vs::ui
