// Child processes of `tare fuzz` (issue 24): the engines run in a forked worker, so that a crash or
// a hang of one of them becomes a finding and the run goes on (fuzz.h, FuzzOptions::isolate). A
// child reports to its parent in lines of text over a pipe; the parent reads them with a time
// limit and kills a child that stops answering.
//
// Fork safety: the parent forks from a state without engine threads (it never runs a fast backend
// or a device itself: the CLI probes backends in a child too, ProbeBackendInChild), so each child
// starts its engines afresh.
#pragma once
#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>

#include "runtime/status.h"

namespace tare::fuzz {

/// Sends one line (without its '\n') from a child to its parent.
using LineSender = std::function<void(const std::string& line)>;

/// A forked child process that writes lines to its parent.
class Child {
 public:
  /// Forks; the child runs body(send) and exits with status 0. Errors: pipe or fork failed.
  static Result<std::unique_ptr<Child>> Start(const std::function<void(const LineSender& send)>& body);
  /// Kills (SIGKILL) and reaps the child if it still runs.
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  enum class Got {
    kLine,     ///< *line holds the next line
    kEnded,    ///< the child closed its end: it exited or was killed (see Signal)
    kTimedOut  ///< no complete line within the time limit (the child still runs; Kill it)
  };
  /// The next line, waiting at most timeout_s seconds for it.
  Got Next(double timeout_s, std::string* line);
  /// Kills the child (SIGKILL) and reaps it.
  void Kill();
  /// After kEnded (the child reaped): the signal that ended it, or 0 when it exited.
  int Signal() const { return signal_; }
  /// After kEnded: its exit status when it exited (0 when body returned).
  int ExitStatus() const { return exit_status_; }

 private:
  Child() = default;
  void Reap();
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string buf_;
  int signal_ = 0, exit_status_ = 0;
};

/// A signal's name for a finding's text, without digits (finding keys cut at the first digit):
/// "SIGSEGV (Segmentation fault)".
std::string SignalName(int sig);

/// Creates backend `name` in a short-lived child (so that this process starts no engine threads
/// and no device): OK, or the error CreateBackend gave, or why the child failed.
Status ProbeBackendInChild(const std::string& name);

}  // namespace tare::fuzz
