#include "fuzz/child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "backends/backend.h"

namespace tare::fuzz {
namespace {

void WriteAll(int fd, const std::string& s) {
  const char* p = s.data();
  size_t n = s.size();
  while (n) {
    const ssize_t w = write(fd, p, n);
    if (w <= 0) return;  // the parent is gone: nothing to tell
    p += w;
    n -= static_cast<size_t>(w);
  }
}

}  // namespace

Result<std::unique_ptr<Child>> Child::Start(const std::function<void(const LineSender& send)>& body) {
  int fds[2];
  // Close-on-exec: programs the child starts (a peer's node.js) do not hold the pipe open.
  if (pipe2(fds, O_CLOEXEC) != 0) return Status::Error(std::string("pipe: ") + std::strerror(errno));
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return Status::Error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    signal(SIGPIPE, SIG_IGN);
    // A fault ends the child plainly, not through a handler the parent installed (a test
    // framework's, a sanitizer's): the parent reads the signal.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) signal(sig, SIG_DFL);
    const int out = fds[1];
    body([out](const std::string& line) { WriteAll(out, line + "\n"); });
    close(out);
    _exit(0);
  }
  close(fds[1]);
  std::unique_ptr<Child> c(new Child());
  c->pid_ = pid;
  c->fd_ = fds[0];
  return c;
}

Child::~Child() { Kill(); }

Child::Got Child::Next(double timeout_s, std::string* line) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    const size_t nl = buf_.find('\n');
    if (nl != std::string::npos) {
      *line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      return Got::kLine;
    }
    if (fd_ < 0) return Got::kEnded;
    const double left = std::chrono::duration<double>(until - std::chrono::steady_clock::now()).count();
    if (left <= 0) return Got::kTimedOut;
    pollfd p{fd_, POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(left * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;  // the loop sees the time is up
    char chunk[4096];
    const ssize_t n = r > 0 ? read(fd_, chunk, sizeof chunk) : -1;
    if (n > 0) {
      buf_.append(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    Reap();  // end of file: the child closed its end (exited or killed)
    if (buf_.find('\n') == std::string::npos) return Got::kEnded;
  }
}

void Child::Kill() {
  if (pid_ > 0) kill(pid_, SIGKILL);
  Reap();
}

void Child::Reap() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  if (pid_ <= 0) return;
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  signal_ = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
}

std::string SignalName(int sig) {
  std::string name;
  switch (sig) {
    case SIGSEGV: name = "SIGSEGV"; break;
    case SIGBUS: name = "SIGBUS"; break;
    case SIGFPE: name = "SIGFPE"; break;
    case SIGILL: name = "SIGILL"; break;
    case SIGABRT: name = "SIGABRT"; break;
    case SIGKILL: name = "SIGKILL"; break;
    case SIGTERM: name = "SIGTERM"; break;
    default: name = "signal"; break;
  }
  const char* text = strsignal(sig);
  std::string t = text ? text : "";
  std::string clean;
  for (char ch : t)
    if (!std::isdigit(static_cast<unsigned char>(ch))) clean += ch;
  return clean.empty() ? name : name + " (" + clean + ")";
}

Status ProbeBackendInChild(const std::string& name) {
  Result<std::unique_ptr<Child>> c = Child::Start([&](const LineSender& send) {
    Result<std::unique_ptr<Backend>> b = CreateBackend(name);
    send(b.ok() ? "ok" : "error " + b.status().message());
  });
  if (!c.ok()) return c.status();
  std::string line;
  if ((*c)->Next(120, &line) != Child::Got::kLine) {
    (*c)->Kill();
    return Status::Error("creating backend '" + name + "' did not finish" +
                         ((*c)->Signal() ? ": the process ended with " + SignalName((*c)->Signal()) : ""));
  }
  if (line == "ok") return Status::Ok();
  return Status::Error(line.substr(line.find(' ') + 1));
}

}  // namespace tare::fuzz
