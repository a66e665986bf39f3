//===- Progress.h - Progress on a terminal, never in a log ------*- C++ -*-===//
//
// One status line on stderr for work that runs longer than about two
// seconds (a large search, a sweep, a calibration, a plan search): shown
// only when stderr is a terminal (isatty, what llvm::sys::Process::
// StandardErrIsDisplayed tests on POSIX; Support stays free of LLVM for
// the runtime-only build), so pipes, test logs and CI output never see it;
// redrawn at most every quarter second; erased when done. Header-only.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_SUPPORT_PROGRESS_H
#define TSHAPE_SUPPORT_PROGRESS_H

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include <unistd.h>

namespace tshape {

class Progress {
public:
  using Clock = std::chrono::steady_clock;

  /// `tool` leads the line ("tshape advise"). Nothing is drawn before
  /// `delaySeconds` have passed, nor more often than every
  /// `intervalSeconds`; `enabled` overrides the terminal test (tests).
  explicit Progress(std::string_view tool, double delaySeconds = 2.0,
                    double intervalSeconds = 0.25,
                    bool enabled = isatty(STDERR_FILENO) != 0)
      : tool(tool), start(Clock::now()), delay(delaySeconds),
        interval(intervalSeconds), enabled(enabled) {}
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;
  ~Progress() { done(); }

  /// The current stage, with `done` of `total` steps when total > 0.
  void update(std::string_view stage, int64_t done = 0, int64_t total = 0) {
    if (!enabled)
      return;
    const Clock::time_point now = Clock::now();
    if (seconds(start, now) < delay ||
        (drawn && seconds(last, now) < interval))
      return;
    last = now;
    drawn = true;
    std::string line = "\r\x1b[K" + tool + ": " + std::string(stage);
    if (total > 0)
      line += " (" + std::to_string(done) + "/" + std::to_string(total) + ")";
    line += " ...";
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
  }

  /// Erases the line (when one was drawn).
  void done() {
    if (drawn)
      std::fputs("\r\x1b[K", stderr);
    drawn = false;
  }

  /// Whether a line was drawn and not yet erased (tests).
  bool shown() const { return drawn; }

private:
  static double seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  }

  std::string tool;
  Clock::time_point start, last;
  double delay, interval;
  bool enabled;
  bool drawn = false;
};

} // namespace tshape

#endif // TSHAPE_SUPPORT_PROGRESS_H
