#pragma once

#include <atomic>
#include <sstream>
#include <string>

// klog-style logging (`I1122 14:34:38.123456    4711 session.cpp:88] message`) to stderr,
// so kube-scheduler operators read the extender's lines the way they read the scheduler's;
// or one JSON object per line (`--log-format=json`, as Kubernetes components' JSON
// format) for log pipelines. Nothing is logged per request at the default verbosity.
namespace server::logging {

enum class Severity : char { Info = 'I', Warning = 'W', Error = 'E' };

enum class Format { Text, Json };
void setFormat(Format format);

// -v: lines logged at level N appear when the verbosity is at least N.
void setVerbosity(int level);
int verbosity();
inline bool enabled(int level) { return level <= verbosity(); }

// Where a line was logged. std::source_location would do, but clang 14 cannot build it over
// libstdc++ 12 (no __builtin_source_location), and the fuzzers and sanitizers build with
// clang; the builtins below are what both compilers have.
struct Caller {
  static Caller here(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return {file, line};
  }
  const char* file;
  int line;
};

void write(Severity severity, const std::string& message, Caller where = Caller::here());

// Builds one line and writes it when it goes out of scope:
//   logging::Line(Severity::Info) << "listening on " << endpoint;
class Line {
 public:
  explicit Line(Severity severity, Caller where = Caller::here())
      : severity_(severity), where_(where) {}
  ~Line() { write(severity_, stream_.str(), where_); }
  Line(const Line&) = delete;
  Line& operator=(const Line&) = delete;

  template <typename T>
  Line& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  Severity severity_;
  Caller where_;
  std::ostringstream stream_;
};

}  // namespace server::logging

#define SX_LOG_INFO ::server::logging::Line(::server::logging::Severity::Info)
#define SX_LOG_WARNING ::server::logging::Line(::server::logging::Severity::Warning)
#define SX_LOG_ERROR ::server::logging::Line(::server::logging::Severity::Error)
// klog.V(n).Info: the line's arguments are not even evaluated below the verbosity.
#define SX_LOG_V(level)                     \
  if (!::server::logging::enabled(level)) { \
  } else                                    \
    SX_LOG_INFO
