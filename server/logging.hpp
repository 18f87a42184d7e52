#pragma once

#include <atomic>
#include <source_location>
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

void write(Severity severity, const std::string& message,
           std::source_location where = std::source_location::current());

// Builds one line and writes it when it goes out of scope:
//   logging::Line(Severity::Info) << "listening on " << endpoint;
class Line {
 public:
  explicit Line(Severity severity, std::source_location where = std::source_location::current())
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
  std::source_location where_;
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
