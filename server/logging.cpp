#include "server/logging.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string_view>

namespace server::logging {
namespace {

std::atomic<int> currentVerbosity{0};
std::atomic<Format> currentFormat{Format::Text};
std::mutex writeMutex;

std::string_view baseName(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

const char* levelName(Severity severity) {
  switch (severity) {
    case Severity::Warning:
      return "warning";
    case Severity::Error:
      return "error";
    default:
      return "info";
  }
}

}  // namespace

void setFormat(Format format) { currentFormat.store(format, std::memory_order_relaxed); }
void setVerbosity(int level) { currentVerbosity.store(level, std::memory_order_relaxed); }
int verbosity() { return currentVerbosity.load(std::memory_order_relaxed); }

void write(Severity severity, const std::string& message, Caller where) {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t seconds = system_clock::to_time_t(now);
  const auto micros = duration_cast<microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char header[64];
  std::snprintf(header, sizeof header, "%c%02d%02d %02d:%02d:%02d.%06lld %7d ",
                static_cast<char>(severity), utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min,
                utc.tm_sec, static_cast<long long>(micros), static_cast<int>(::getpid()));
  const std::string_view file = baseName(where.file);
  std::lock_guard lock(writeMutex);
  if (currentFormat.load(std::memory_order_relaxed) == Format::Json) {
    // RapidJSON escapes the message, which may quote anything a client sent.
    rapidjson::StringBuffer line;
    rapidjson::Writer<rapidjson::StringBuffer> w(line);
    w.StartObject();
    w.Key("ts");
    w.Double(static_cast<double>(seconds) + static_cast<double>(micros) / 1e6);
    w.Key("level");
    w.String(levelName(severity));
    w.Key("caller");
    const std::string caller = std::string(file) + ":" + std::to_string(where.line);
    w.String(caller.data(), static_cast<rapidjson::SizeType>(caller.size()));
    w.Key("msg");
    w.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
    w.EndObject();
    std::fprintf(stderr, "%s\n", line.GetString());
  } else {
    std::fprintf(stderr, "%s%.*s:%u] %s\n", header, static_cast<int>(file.size()), file.data(),
                 static_cast<unsigned>(where.line), message.c_str());
  }
  std::fflush(stderr);
}

}  // namespace server::logging
