#include "live/RemoteDialogForm.h"

#include <QDialog>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QVBoxLayout>

namespace vs::ui {

QFormLayout* remoteDialogForm(QDialog* dialog, const QString& intro, QLineEdit*& host) {
    auto* layout = new QVBoxLayout(dialog);
    auto* label = new QLabel(intro, dialog);
    label->setWordWrap(true);
    layout->addWidget(label);
    auto* form = new QFormLayout;
    host = new QLineEdit(dialog);
    host->setPlaceholderText(QDialog::tr("user@gpu-server, gpu-server:2222 or an alias of ~/.ssh/config"));
    host->setText(QSettings().value(QStringLiteral("remote/host")).toString());
    form->addRow(QDialog::tr("&Host:"), host);
    layout->addLayout(form);
    return form;
}

void rememberHost(const QLineEdit* host) {
    QSettings().setValue(QStringLiteral("remote/host"), host->text().trimmed());
}

} // namespace vs::ui
