#pragma once
// A throwaway OpenSSH server for the remote tests (tst_remote, tst_remote_cli): Debian's sshd on a
// free loopback port, with host and user keys made for the test in a private temporary directory,
// and the client configuration that reaches it (sshCommand(): "ssh -F DIR/ssh_config", for
// VRAMSCOPE_SSH). Hosts in that configuration:
//   vstest           the server, with our key and its host key known (SetEnv: `environment`)
//   vstest-stranger  a key the server does not know: login refused
//   vstest-newkey    a known_hosts that holds another host key: host key refused
// sshd runs as the test's user (root here and in CI: PermitRootLogin prohibit-password).
#include <QByteArray>
#include <QMap>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>

#include <memory>

class SshServer {
  public:
    ~SshServer();
    static QString sshdPath(); // empty when openssh-server is not installed: the tests skip
    // Starts sshd; false with `why`. `environment` is sent by the client (SetEnv) to vstest.
    bool start(const QMap<QString, QString>& environment, QString& why);
    QString sshCommand() const;
    QString dir() const { return dir_->path(); }
    QByteArray log(); // what sshd said (-e)
    // Kills the per-connection sshd processes (not the programs they started, nor the daemon): every
    // open connection drops as when the network goes.
    int dropConnections();

  private:
    bool writeConfigs(int port, const QMap<QString, QString>& environment, QString& why);
    std::unique_ptr<QTemporaryDir> dir_;
    QProcess sshd_;
    QByteArray log_;
};
