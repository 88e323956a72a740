#include "live/RecordRemoteDialog.h"

#include "live/RemoteDialogForm.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>

namespace vs::ui {

RecordRemoteDialog::RecordRemoteDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Record on a Remote Machine"));
    QFormLayout* form =
        remoteDialogForm(this,
                         tr("The program runs on the host under the vramscope recorder (installed there: "
                            "<code>pip install</code> of capture/python, or vramscope-cli for CUDA "
                            "programs), through your own "
                            "<b>ssh</b>. Its recording is kept on the host and streamed here live over a "
                            "socket that ssh forwards. "
                            "Closing this window asks whether to stop it; a dropped connection never does."),
                         host_);
    command_ = new QLineEdit(this);
    command_->setPlaceholderText(tr("python train.py --epochs 3"));
    dir_ = new QLineEdit(this);
    dir_->setPlaceholderText(tr("the remote home"));
    form->addRow(tr("&Command line:"), command_);
    form->addRow(tr("&Working directory:"), dir_);
    why_ = new QLabel(this);
    why_->setWordWrap(true);
    layout()->addWidget(why_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    ok_ = buttons->addButton(tr("&Record"), QDialogButtonBox::AcceptRole);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout()->addWidget(buttons);
    QSettings s;
    command_->setText(s.value(QStringLiteral("remote/command")).toString());
    dir_->setText(s.value(QStringLiteral("remote/dir")).toString());
    for (QLineEdit* e : {host_, command_, dir_})
        connect(e, &QLineEdit::textChanged, this, &RecordRemoteDialog::update);
    update();
    resize(600, sizeHint().height());
}

std::optional<std::pair<SshTarget, RemoteProgram>> RecordRemoteDialog::request() const {
    std::string error;
    const auto target = parseSshHost(host_->text().trimmed().toStdString(), error);
    if (!target) return why_->setText(QString::fromStdString(error)), std::nullopt;
    RemoteProgram program;
    for (const QString& w : QProcess::splitCommand(command_->text()))
        program.words.push_back(w.toStdString());
    program.workDir = dir_->text().trimmed().toStdString();
    try {
        (void)remoteInput(runScript(program, "/d", "t")); // runnable, and its words can be sent
    } catch (const std::invalid_argument& e) {
        return why_->setText(QString::fromStdString(e.what())), std::nullopt;
    }
    why_->setText(runsUnderPythonRecorder(program) ? tr("Recorder: python -m vramscope record")
                                                   : tr("Recorder: vramscope-cli run (the CUPTI agent)"));
    return std::pair{*target, program};
}

void RecordRemoteDialog::update() {
    ok_->setEnabled(request().has_value());
}

std::optional<std::pair<SshTarget, RemoteProgram>> RecordRemoteDialog::ask(QWidget* parent) {
    RecordRemoteDialog d(parent);
    if (d.exec() != QDialog::Accepted) return std::nullopt;
    rememberHost(d.host_);
    QSettings s;
    s.setValue(QStringLiteral("remote/command"), d.command_->text());
    s.setValue(QStringLiteral("remote/dir"), d.dir_->text().trimmed());
    return d.request();
}

} // namespace vs::ui
