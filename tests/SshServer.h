#pragma once
// A throwaway OpenSSH server for the remote tests (tst_remote, tst_remote_cli): Debian's sshd on a
// free loopback port, with host and user keys made for the test in a private temporary directory,
// and the client configuration that reaches it (sshCommand(): "ssh -F DIR/ssh_config", for
// VRAMSCOPE_SSH). Hosts in that configuration:
//   vstest           the server, with our key and its host key known (SetEnv: `environment`)
//   vstest-stranger  a key the server does not know: login refused
//   vstest-newkey    a known_hosts that holds another host key: host key refused
// sshd runs as the test's user (root here and in CI: PermitRootLogin prohibit-password).
// With a switchable login shell, sshd reads the user's passwd entry through nss_wrapper (Debian's
// libnss-wrapper): its shell is DIR/login-shell, a link that setLoginShell() points at fish, tcsh
// or a fake hostile host, so that every command ssh hands over is parsed by that program, exactly
// as a user's own login shell would parse it.
#include <QByteArray>
#include <QDir>
#include <QMap>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>

#include <memory>

class SshServer {
  public:
    ~SshServer();
    static QString sshdPath();       // empty when openssh-server is not installed: the tests skip
    static QString nssWrapperPath(); // empty when libnss-wrapper is not installed: those tests skip
    // Starts sshd; false with `why`. `environment` is sent by the client (SetEnv) to vstest.
    bool start(const QMap<QString, QString>& environment, QString& why, bool switchableShell = false);
    // The program sshd runs as the user's login shell from the next connection on (`shell -c CMD`);
    // false unless started with a switchable shell.
    bool setLoginShell(const QString& program);
    // A fake host: `script` (sh) becomes the login shell; it is handed `-c COMMAND` and answers
    // whatever it likes.
    bool setLoginScript(const QString& script);
    // A login shell that notes the command it is handed (`-c COMMAND`), then runs it with /bin/sh;
    // loginCommands() gives what it noted, in order.
    bool setLoggingShell();
    QList<QByteArray> loginCommands() const;
    QString sshCommand() const;
    QString dir() const { return dir_->path(); }
    // The user's home on the host (where its login shell starts): DIR/home with a switchable
    // shell, else the user's own.
    QString home() const { return switchable_ ? dir() + "/home" : QDir::homePath(); }
    QByteArray log(); // what sshd said (-e)
    // Kills the per-connection sshd processes (not the programs they started, nor the daemon): every
    // open connection drops as when the network goes.
    int dropConnections();

  private:
    bool writeConfigs(int port, const QMap<QString, QString>& environment, QString& why);
    bool writePasswd();
    std::unique_ptr<QTemporaryDir> dir_;
    QProcess sshd_;
    QByteArray log_;
    bool switchable_ = false;
};
