#include "scheduling/informers/reflector.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>

#include "scheduling/api/decode_error.hpp"
#include "scheduling/informers/json_stream_framer.hpp"
#include "scheduling/informers/list_stream_splitter.hpp"

namespace scheduling::informers {

namespace net = boost::asio;
namespace beast = boost::beast;
using api::json::WatchEventType;

Resource podsResource() {
  return {"pods", "/api/v1/pods", "status.phase!=Succeeded,status.phase!=Failed"};
}
Resource nodesResource() { return {"nodes", "/api/v1/nodes", ""}; }
Resource namespacesResource() { return {"namespaces", "/api/v1/namespaces", ""}; }
Resource podDisruptionBudgetsResource() {
  return {"poddisruptionbudgets", "/apis/policy/v1/poddisruptionbudgets", ""};
}

namespace {

// Why the reflector starts over, and how: `reason` labels the restart metric.
struct Restart {
  std::string reason;
  std::string detail;
  bool relist = false;
  bool backoff = true;
};

std::string queryEscaped(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

const char* typeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::Added:
      return "ADDED";
    case WatchEventType::Modified:
      return "MODIFIED";
    case WatchEventType::Deleted:
      return "DELETED";
    case WatchEventType::Bookmark:
      return "BOOKMARK";
    case WatchEventType::Error:
      return "ERROR";
  }
  return "UNKNOWN";
}

// The message of the Status an error answer carries, "" when it carries none.
std::string statusMessage(std::string_view body) {
  try {
    return api::json::decodeStatus(body).message;
  } catch (const api::DecodeError&) {
    return {};  // not a Status (a proxy's HTML page, say): the status line says enough
  }
}

// "410 Gone: too old resource version: 12 (40)" from an answer's status line and message.
std::string describeAnswer(unsigned code, std::string_view reasonPhrase,
                           const std::string& message) {
  std::string text = std::to_string(code) + " " + std::string(reasonPhrase);
  if (!message.empty()) text += ": " + message;
  return text;
}

// An API server whose watch cache has not caught up with the resourceVersion asked for
// (after a restart, or a fail-over to a replica that lags) answers 504 "Too large resource
// version"; as with 410, only a relist gets past it (client-go decides the same).
bool tooLargeResourceVersion(unsigned code, std::string_view message) {
  return code == 504 && message.find("Too large resource version") != std::string_view::npos;
}

// A watch the server refused, by its status or by an ERROR event: 410 (the resourceVersion
// is older than the server's history) and "too large" need a relist; anything else is
// retried after a backoff as `otherwise`.
Restart refusedWatch(unsigned code, std::string_view message, std::string detail,
                     const char* otherwise) {
  if (code == 410) return {"gone", std::move(detail), true, false};
  if (tooLargeResourceVersion(code, message)) return {"too_large", std::move(detail), true, true};
  return {otherwise, std::move(detail), false, true};
}

Restart restartFor(const boost::system::system_error& e, bool watching) {
  if (e.code() == beast::error::timeout) {
    // A silent watch is routine (a quiet resource) or a stall (a dead peer, a half-open
    // connection); either way a new watch from where the cache stands is the cheap cure, and
    // it needs no backoff.
    if (watching) return {"idle", "no event or bookmark within the idle timeout", false, false};
    return {"timeout", "request timed out"};
  }
  return {"connection", e.code().message()};
}

}  // namespace

template <typename T>
Reflector<T>::Reflector(Resource resource, ApiConnection& connection, CacheStore<T>& store,
                        InformerObserver& observer, ReflectorOptions options, unsigned seed)
    : resource_(std::move(resource)),
      connection_(connection),
      store_(store),
      observer_(observer),
      options_(options),
      backoff_(options.initialBackoff, options.maxBackoff, seed),
      random_(seed),
      timer_(connection.executor()),
      lastHeard_(std::chrono::steady_clock::now().time_since_epoch().count()) {}

template <typename T>
void Reflector<T>::stop() {
  stopped_ = true;
  timer_.cancel();
  connection_.close();
}

template <typename T>
net::awaitable<void> Reflector<T>::run() {
  while (!stopped_) {
    Restart restart;
    try {
      if (needList_) co_await list();
      co_await watch();
      restart = {"closed", "the API server ended the watch", false, false};
    } catch (Restart& r) {
      restart = std::move(r);
    } catch (const api::DecodeError& e) {
      // Something was not understood: the cache may have missed a change, so start over.
      restart = {"decode", e.what(), true, true};
    }
    if (stopped_) break;
    backlog_.store(0, std::memory_order_relaxed);  // what was unread went with the connection
    if (restart.relist) needList_ = true;
    observer_.watchRestart(resource_.name, restart.reason, needList_, restart.detail);
    if (restart.backoff) {
      timer_.expires_after(backoff_.next());
      boost::system::error_code ignored;
      co_await timer_.async_wait(net::redirect_error(net::use_awaitable, ignored));
    }
  }
}

template <typename T>
std::string Reflector<T>::listTarget(const std::string& continueToken) const {
  std::string target = resource_.path + "?limit=" + std::to_string(options_.pageSize);
  if (!resource_.fieldSelector.empty()) {
    target += "&fieldSelector=" + queryEscaped(resource_.fieldSelector);
  }
  if (!continueToken.empty()) target += "&continue=" + queryEscaped(continueToken);
  return target;
}

template <typename T>
std::string Reflector<T>::watchTarget() {
  const auto min = options_.minWatchTimeout.count();
  std::uniform_int_distribution<long> timeout(min, 2 * min - 1);
  std::string target = resource_.path + "?watch=true&allowWatchBookmarks=true&resourceVersion=" +
                       queryEscaped(resourceVersion_) +
                       "&timeoutSeconds=" + std::to_string(timeout(random_));
  if (!resource_.fieldSelector.empty()) {
    target += "&fieldSelector=" + queryEscaped(resource_.fieldSelector);
  }
  return target;
}

template <typename T>
net::awaitable<void> Reflector<T>::list() {
  const auto start = std::chrono::steady_clock::now();
  ListSummary summary;
  summary.first = !synced_.load();
  std::string continueToken;
  std::string resourceVersion;
  store_.beginReplace();
  do {
    http::status status;
    try {
      status = co_await connection_.get(listTarget(continueToken), options_.requestTimeout);
    } catch (const boost::system::system_error& e) {
      throw restartFor(e, false);
    }
    if (status != http::status::ok) {
      const std::string body = co_await readErrorBody();
      const std::string detail =
          "LIST " + describeAnswer(static_cast<unsigned>(status), http::obsolete_reason(status),
                                   statusMessage(body));
      // The continue token expired (the list took longer than etcd keeps its revision):
      // start the list over from its first page.
      if (status == http::status::gone) throw Restart{"expired", detail, true, false};
      throw Restart{"list_error", detail, true, true};
    }
    heard();
    const auto meta = co_await readListPage(summary);
    continueToken = meta.continueToken;
    resourceVersion = meta.resourceVersion;
    // Requests see a relist progress page by page; before the first list completes nobody
    // reads the cache (the extender is not ready), so it is published once, at the end.
    if (!summary.first) store_.publishSoon();
  } while (!continueToken.empty());
  summary.deleted = store_.endReplace();
  store_.publishNow();
  resourceVersion_ = resourceVersion;
  needList_ = false;
  synced_.store(true);
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  observer_.listed(resource_.name, summary);
}

template <typename T>
net::awaitable<api::json::ListMeta> Reflector<T>::readListPage(ListSummary& summary) {
  // Item by item as the bytes arrive: memory holds one item, whatever the page size the
  // server chose (a server may ignore `limit`).
  ListStreamSplitter splitter;
  std::string bytes;
  for (bool more = true; more;) {
    bytes.clear();
    try {
      more = co_await connection_.readSome(bytes, options_.requestTimeout);
    } catch (const boost::system::system_error& e) {
      throw restartFor(e, false);
    }
    if (!bytes.empty()) heard();
    noteBacklog();
    splitter.append(bytes);
    for (auto text = splitter.nextItem(); !text.empty(); text = splitter.nextItem()) {
      store_.replaceItem(text, splitter.itemsSeen() - 1);
      ++summary.items;
    }
  }
  if (!splitter.complete()) throw api::DecodeError("", "the list answer ended before its end");
  ++summary.pages;
  co_return api::json::decodeListMeta(splitter.envelope());
}

template <typename T>
net::awaitable<std::string> Reflector<T>::readErrorBody() {
  // An error answer is a small Status; read at most a little of whatever came.
  std::string body;
  try {
    while (body.size() < (64u << 10) &&
           co_await connection_.readSome(body, options_.requestTimeout)) {
    }
  } catch (const boost::system::system_error&) {
    // The status line is enough to act on.
  }
  connection_.close();
  co_return body;
}

template <typename T>
net::awaitable<void> Reflector<T>::watch() {
  http::status status;
  try {
    status = co_await connection_.get(watchTarget(), options_.requestTimeout);
  } catch (const boost::system::system_error& e) {
    throw restartFor(e, false);
  }
  if (status != http::status::ok) {
    const std::string body = co_await readErrorBody();
    const std::string message = statusMessage(body);
    const auto code = static_cast<unsigned>(status);
    const std::string detail =
        "WATCH " + describeAnswer(code, http::obsolete_reason(status), message);
    throw refusedWatch(code, message, detail, "watch_error");
  }
  backoff_.reset();  // the API server answers again
  heard();
  try {
    co_await readEvents();
  } catch (const boost::system::system_error& e) {
    throw restartFor(e, true);
  }
}

template <typename T>
net::awaitable<void> Reflector<T>::readEvents() {
  JsonStreamFramer framer;
  std::string bytes;
  for (bool more = true; more;) {
    bytes.clear();
    more = co_await connection_.readSome(bytes, options_.idleTimeout);
    if (!bytes.empty()) heard();
    noteBacklog();
    framer.append(bytes);
    for (auto text = framer.next(); !text.empty(); text = framer.next()) {
      auto event = api::json::decodeWatchEvent<T>(text);
      observer_.watchEvent(resource_.name, typeName(event.type));
      if (event.type == WatchEventType::Error) {
        const auto& s = event.status;
        throw refusedWatch(
            static_cast<unsigned>(s.code), s.message,
            "ERROR event " + std::to_string(s.code) + " " + s.reason + ": " + s.message,
            "error_event");
      }
      if (!event.resourceVersion.empty()) resourceVersion_ = std::move(event.resourceVersion);
      if (event.type == WatchEventType::Bookmark) continue;
      store_.apply(event.type, std::move(event.object));
      // The publish runs on this executor once this read's events are all applied: a
      // snapshot never holds half of what one read delivered.
      store_.publishSoon();
    }
  }
}

template class Reflector<api::Pod>;
template class Reflector<api::Node>;
template class Reflector<api::Namespace>;
template class Reflector<api::PodDisruptionBudget>;

}  // namespace scheduling::informers
