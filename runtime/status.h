// Status and Result<T>: tare's error model. No exception escapes a public API; every failure is a
// Status carrying one human-readable line that says what went wrong and where (file, node, op,
// attribute, expected vs got).
#pragma once
#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace tare {

/// What kind of failure a Status is, where the code that fails knows it (the C API's tare_status
/// codes, include/tare/tare.h, come from it). kUnspecified: the caller decides from context (a
/// failed load is a bad model, a failed session creation an invalid model, a failed kernel a
/// run-time error).
enum class StatusCode {
  kUnspecified,
  kInvalidArgument,  ///< a bad argument from the caller (an unknown input name, a wrong dtype)
  kBadModel,         ///< a malformed model file or graph
  kUnsupported,      ///< an op or feature this build does not run
  kShape,            ///< an input shape that does not match the model, or shape inference failing on it
  kLimit,            ///< a tensor, an arena or a count over a limit; out of memory
  kIO,               ///< a file that cannot be opened, mapped, read or written
  kInternal,         ///< a bug in tare
};

/// Outcome of an operation: ok, or an error with a one-line message.
class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  /// An error; `msg` should name the object at fault and what was expected.
  static Status Error(std::string msg) {
    Status s;
    s.msg_ = std::move(msg);
    s.failed_ = true;
    return s;
  }
  /// An error of a known kind (StatusCode).
  static Status Error(StatusCode code, std::string msg) {
    Status s = Error(std::move(msg));
    s.code_ = code;
    return s;
  }
  /// An error meaning "shape inference needs the data of a value that is only known at run time"
  /// (e.g. a Reshape whose shape is a graph input); the session then plans at run time.
  static Status NeedsValue(std::string msg) {
    Status s = Error(std::move(msg));
    s.needs_value_ = true;
    return s;
  }
  bool ok() const { return !failed_; }
  bool needs_value() const { return needs_value_; }
  const std::string& message() const { return msg_; }
  StatusCode code() const { return code_; }
  /// A copy with code `c` when this is an error whose code is unspecified (else unchanged).
  Status OrCode(StatusCode c) const {
    Status s = *this;
    if (failed_ && code_ == StatusCode::kUnspecified) s.code_ = c;
    return s;
  }
  /// Returns a copy whose message is prefixed by `where` ("node 'conv1' (Conv): ..."); the code is kept.
  Status With(const std::string& where) const {
    if (ok()) return *this;
    Status s = Error(code_, where + ": " + msg_);
    s.needs_value_ = needs_value_;
    return s;
  }

 private:
  std::string msg_;
  StatusCode code_ = StatusCode::kUnspecified;
  bool failed_ = false;
  bool needs_value_ = false;
};

/// A value of type T, or the Status explaining why there is none.
template <class T>
class Result {
 public:
  Result(T v) : value_(std::move(v)) {}          // NOLINT: implicit by design
  Result(Status s) : status_(std::move(s)) { assert(!status_.ok()); }  // NOLINT
  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace tare

#define TARE_CONCAT_INNER(a, b) a##b
#define TARE_CONCAT(a, b) TARE_CONCAT_INNER(a, b)

/// Returns the Status from the enclosing function when `expr` fails.
#define TARE_RETURN_IF_ERROR(expr)                  \
  do {                                              \
    ::tare::Status _tare_st = (expr);               \
    if (!_tare_st.ok()) return _tare_st;            \
  } while (0)

/// `TARE_ASSIGN_OR_RETURN(auto x, f())`: binds the value of a Result or returns its Status.
/// It expands to several statements: use it only directly in a braced block, never as the body
/// of an unbraced `if`/`for`.
#define TARE_ASSIGN_OR_RETURN(lhs, expr) \
  TARE_ASSIGN_OR_RETURN_IMPL(TARE_CONCAT(_tare_res_, __LINE__), lhs, expr)
#define TARE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
