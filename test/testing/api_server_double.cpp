#include "test/testing/api_server_double.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string_view>

namespace testing {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

constexpr const char* kPodSelector = "status.phase!=Succeeded,status.phase!=Failed";

std::string pkiFile(const char* name) {
  return std::string(SX_SOURCE_DIR) + "/test/data/pki/" + name;
}

std::string urlDecoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i] == '+' ? ' ' : text[i]);
    }
  }
  return out;
}

std::map<std::string, std::string> queryOf(std::string_view target) {
  std::map<std::string, std::string> query;
  const auto mark = target.find('?');
  if (mark == std::string_view::npos) return query;
  std::string_view rest = target.substr(mark + 1);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const auto pair = rest.substr(0, amp);
    const auto eq = pair.find('=');
    query[urlDecoded(pair.substr(0, eq))] =
        eq == std::string_view::npos ? "" : urlDecoded(pair.substr(eq + 1));
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
  }
  return query;
}

// A failure Status as kube-apiserver writes one; `kind` and `name` fill its details, as for
// errors about one object.
std::string statusJson(unsigned code, const std::string& reason, const std::string& message,
                       const std::string& kind = "", const std::string& name = "") {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("kind");
  w.String("Status");
  w.Key("apiVersion");
  w.String("v1");
  w.Key("metadata");
  w.StartObject();
  w.EndObject();
  w.Key("status");
  w.String("Failure");
  w.Key("message");
  w.String(message.c_str());
  w.Key("reason");
  w.String(reason.c_str());
  if (!kind.empty()) {
    w.Key("details");
    w.StartObject();
    w.Key("name");
    w.String(name.c_str());
    w.Key("kind");
    w.String(kind.c_str());
    w.EndObject();
  }
  w.Key("code");
  w.Uint(code);
  w.EndObject();
  return buffer.GetString();
}

std::string notFoundJson(const std::string& name) {
  return statusJson(404, "NotFound", "pods \"" + name + "\" not found", "pods", name);
}

// The 409 that storage's conflicts become (apimachinery's NewConflict).
std::string conflictJson(const std::string& kind, const std::string& name, const std::string& why) {
  return statusJson(409, "Conflict",
                    "Operation cannot be fulfilled on " + kind + " \"" + name + "\": " + why, kind,
                    name);
}

// The string at `path` in a JSON object, "" when absent or not a string.
std::string stringAt(const rapidjson::Value& value, std::initializer_list<const char*> path) {
  const rapidjson::Value* at = &value;
  for (const char* key : path) {
    if (!at->IsObject()) return "";
    const auto member = at->FindMember(key);
    if (member == at->MemberEnd()) return "";
    at = &member->value;
  }
  return at->IsString() ? std::string(at->GetString(), at->GetStringLength()) : "";
}

std::vector<std::string> pathSegments(std::string_view path) {
  std::vector<std::string> segments;
  while (!path.empty()) {
    const auto slash = path.find('/');
    segments.emplace_back(path.substr(0, slash));
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
  }
  return segments;
}

constexpr std::string_view kPodDisruptionBudgetsPath = "/apis/policy/v1/poddisruptionbudgets";

const char* kindOf(const std::string& resource) {
  if (resource == "poddisruptionbudgets") return "PodDisruptionBudget";
  return resource == "pods" ? "Pod" : resource == "nodes" ? "Node" : "Namespace";
}

const char* apiVersionOf(const std::string& resource) {
  return resource == "poddisruptionbudgets" ? "policy/v1" : "v1";
}

// Pods and budgets live in a namespace: they are keyed namespace/name.
bool namespaced(const std::string& resource) {
  return resource == "pods" || resource == "poddisruptionbudgets";
}

std::string keyOf(const std::string& resource, const ApiObject& object) {
  return namespaced(resource) ? object.ns + "/" + object.name : object.name;
}

bool selectedBy(bool selected, const ApiObject& object) {
  return !selected || (object.phase != "Succeeded" && object.phase != "Failed");
}

template <typename Stream>
void writeAnswer(Stream& stream, unsigned status, const std::string& body) {
  http::response<http::string_body> answer{static_cast<http::status>(status), 11};
  answer.set(http::field::content_type, "application/json");
  answer.body() = body;
  answer.prepare_payload();
  answer.keep_alive(true);
  http::write(stream, answer);
}

// A 200 LIST answer as kube-apiserver streams a large list: chunked, here in small chunks so
// that items straddle the chunks and the client's reads. The chunks go out 64 KiB at a time,
// as Go's buffered response writer and TLS records coalesce them: a write per chunk made the
// double's syscalls, not the client, the pace of a large list.
template <typename Stream>
void writeChunkedAnswer(Stream& stream, const std::string& body) {
  http::response<http::empty_body> header{http::status::ok, 11};
  header.set(http::field::content_type, "application/json");
  header.chunked(true);
  header.keep_alive(true);
  http::response_serializer<http::empty_body> serializer{header};
  http::write_header(stream, serializer);
  constexpr std::size_t kChunk = 777;
  constexpr std::size_t kWrite = 64u << 10;
  std::string out;
  char size[24];
  for (std::size_t at = 0; at < body.size(); at += kChunk) {
    const std::size_t n = std::min(kChunk, body.size() - at);
    out.append(size, static_cast<std::size_t>(std::snprintf(size, sizeof size, "%zx\r\n", n)));
    out.append(body, at, n);
    out += "\r\n";
    if (out.size() >= kWrite) {
      net::write(stream, net::buffer(out));
      out.clear();
    }
  }
  out += "0\r\n\r\n";
  net::write(stream, net::buffer(out));
}

}  // namespace

struct ApiServerDouble::Connection {
  explicit Connection(tcp::socket s) : socket(std::move(s)), fd(socket.native_handle()) {}
  tcp::socket socket;
  int fd;
};

ApiServerDouble::ApiServerDouble(Options options)
    : options_(std::move(options)),
      acceptor_(io_, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0)) {
  port_ = acceptor_.local_endpoint().port();
  if (options_.tls) {
    tls_ = std::make_unique<net::ssl::context>(net::ssl::context::tls_server);
    tls_->use_certificate_chain_file(pkiFile("server.crt"));
    tls_->use_private_key_file(pkiFile("server.key"), net::ssl::context::pem);
  }
  acceptThread_ = std::thread([this] { accept(); });
}

ApiServerDouble::~ApiServerDouble() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (const auto& connection : connections_) ::shutdown(connection->fd, SHUT_RDWR);
  }
  changed_.notify_all();
  // Wake the blocking accept with a connection of our own.
  {
    net::io_context io;
    tcp::socket wake(io);
    boost::system::error_code ignored;
    wake.connect(acceptor_.local_endpoint(), ignored);
  }
  acceptThread_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    threads.swap(threads_);
  }
  for (auto& thread : threads) thread.join();
}

std::string ApiServerDouble::url() const {
  return std::string(options_.tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
}

void ApiServerDouble::accept() {
  for (;;) {
    tcp::socket socket(io_);
    boost::system::error_code ec;
    acceptor_.accept(socket, ec);
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    if (ec) continue;
    // Go's net package turns Nagle's algorithm off on every TCP connection, kube-apiserver's
    // included: a list page's last small write then goes out at once, where Nagle would hold
    // it until the client's delayed acknowledgement (up to 40 ms) of the write before it.
    socket.set_option(tcp::no_delay(true), ec);
    auto connection = std::make_shared<Connection>(std::move(socket));
    connections_.push_back(connection);
    threads_.emplace_back([this, connection] { serve(connection); });
  }
}

void ApiServerDouble::serve(std::shared_ptr<Connection> connection) {
  try {
    if (tls_) {
      net::ssl::stream<tcp::socket&> stream(connection->socket, *tls_);
      stream.handshake(net::ssl::stream_base::server);
      serveStream(stream, *connection);
    } else {
      serveStream(connection->socket, *connection);
    }
  } catch (const std::exception&) {
    // The client went away, or a fault closed the connection.
  }
  std::lock_guard lock(mutex_);
  ::shutdown(connection->fd, SHUT_RDWR);
  connections_.remove(connection);
}

template <typename Stream>
void ApiServerDouble::serveStream(Stream& stream, Connection&) {
  beast::flat_buffer buffer;
  for (;;) {
    http::request<http::string_body> request;
    http::read(stream, buffer, request);
    const std::string authorization(request[http::field::authorization]);
    if (!handle(stream, request.method(), std::string(request.target()), authorization,
                request.body())) {
      return;
    }
  }
}

template <typename Stream>
bool ApiServerDouble::handle(Stream& stream, http::verb method, const std::string& target,
                             const std::string& authorization, const std::string& requestBody) {
  const std::string path = target.substr(0, target.find('?'));
  auto query = queryOf(target);
  const bool watch = query["watch"] == "true" || query["watch"] == "1";
  const std::string resource = path.starts_with("/api/v1/")        ? path.substr(8)
                               : path == kPodDisruptionBudgetsPath ? "poddisruptionbudgets"
                                                                   : "";
  // namespaces/{ns}/pods/{name}, or namespaces/{ns}/pods/{name}/binding
  const auto segments = pathSegments(resource);
  const bool onePod =
      (segments.size() == 4 || (segments.size() == 5 && segments[4] == "binding")) &&
      segments[0] == "namespaces" && segments[2] == "pods";
  const bool binding = onePod && segments.size() == 5;
  std::unique_lock lock(mutex_);
  if (onePod) {
    requests_.push_back((binding ? "BIND " : "GET pods ") + segments[1] + "/" + segments[3]);
  } else {
    requests_.push_back((watch ? "WATCH " : "LIST ") + resource);
  }
  if (!options_.token.empty() && authorization != "Bearer " + options_.token) {
    lock.unlock();
    writeAnswer(stream, 401, statusJson(401, "Unauthorized", "Unauthorized"));
    return true;
  }
  if (failCount_ > 0) {
    --failCount_;
    const unsigned status = failStatus_;
    lock.unlock();
    if (status == 0) return false;  // the connection closes unanswered
    writeAnswer(stream, status, statusJson(status, "InternalError", "injected failure"));
    return true;
  }
  if (onePod) {
    if (method != (binding ? http::verb::post : http::verb::get)) {
      lock.unlock();
      writeAnswer(stream, 405,
                  statusJson(405, "MethodNotAllowed",
                             "the server does not allow this method on the requested resource"));
    } else if (binding) {
      bind(stream, lock, segments[1], segments[3], requestBody);
    } else {
      getPod(stream, lock, segments[1], segments[3]);
    }
    return true;
  }
  if (resource != "pods" && resource != "nodes" && resource != "namespaces" &&
      resource != "poddisruptionbudgets") {
    lock.unlock();
    writeAnswer(stream, 404, statusJson(404, "NotFound", "the server could not find " + path));
    return true;
  }
  const std::string selector = query["fieldSelector"];
  if (!selector.empty() && !(resource == "pods" && selector == kPodSelector)) {
    lock.unlock();
    writeAnswer(stream, 400, statusJson(400, "BadRequest", "unsupported field selector"));
    return true;
  }
  const bool selected = !selector.empty();

  if (watch && lagNextWatch_) {
    lagNextWatch_ = false;
    const std::string message = "Too large resource version: " + query["resourceVersion"] +
                                ", current: " + std::to_string(resourceVersion_);
    lock.unlock();
    writeAnswer(stream, 504, statusJson(504, "Timeout", message));
    return true;
  }
  if (watch) {
    const std::string& version = query["resourceVersion"];
    const std::uint64_t from = version.empty() ? resourceVersion_ : std::stoull(version);
    if (from < oldestRetained_) {
      const std::string gone = statusJson(410, "Expired",
                                          "too old resource version: " + std::to_string(from) +
                                              " (" + std::to_string(oldestRetained_) + ")");
      lock.unlock();
      if (!options_.goneAsErrorEvent) {
        writeAnswer(stream, 410, gone);
        return true;
      }
      http::response<http::empty_body> header{http::status::ok, 11};
      header.set(http::field::content_type, "application/json");
      header.chunked(true);
      http::response_serializer<http::empty_body> serializer{header};
      http::write_header(stream, serializer);
      const std::string event = R"({"type":"ERROR","object":)" + gone + "}\n";
      net::write(stream, http::make_chunk(net::buffer(event)));
      net::write(stream, http::make_chunk_last());
      return true;
    }
    const int timeoutSeconds =
        query["timeoutSeconds"].empty() ? 1800 : std::stoi(query["timeoutSeconds"]);
    const bool bookmarks = query["allowWatchBookmarks"] == "true";
    // Taken with the 410 check: a dropWatches() from then on cuts this watch too, even
    // one that lands before the stream below has begun.
    const std::uint64_t drops = dropGeneration_;
    lock.unlock();
    streamWatch(stream, resource, from, drops, timeoutSeconds, bookmarks, selected);
    return true;
  }

  // LIST: a page of a snapshot frozen when the list began.
  FrozenList* list = nullptr;
  std::string listId;
  std::size_t offset = 0;
  if (const std::string& token = query["continue"]; !token.empty()) {
    const auto colon = token.find(':');
    listId = token.substr(0, colon);
    offset = colon == std::string::npos ? 0 : std::stoul(token.substr(colon + 1));
    if (expireNextContinue_) {
      expireNextContinue_ = false;
      lists_.erase(listId);
    }
    const auto it = lists_.find(listId);
    if (it == lists_.end()) {
      lock.unlock();
      writeAnswer(stream, 410,
                  statusJson(410, "Expired",
                             "The provided continue parameter is too old to display a consistent "
                             "list result."));
      return true;
    }
    list = &it->second;
  } else {
    listId = "list" + std::to_string(nextListId_++);
    FrozenList frozen{resource, resourceVersion_, {}, 0};
    for (const auto& [key, stored] : state_[resource]) {
      if (selectedBy(selected, stored.object)) frozen.items.push_back(render(resource, stored));
    }
    list = &lists_.emplace(listId, std::move(frozen)).first->second;
  }
  const std::size_t limit =
      query["limit"].empty() || options_.ignoreLimit ? 0 : std::stoul(query["limit"]);
  const std::size_t end =
      limit == 0 ? list->items.size() : std::min(list->items.size(), offset + limit);
  std::string body = R"({"kind":")" + std::string(kindOf(resource)) +
                     R"(List","apiVersion":"v1","metadata":{"resourceVersion":")" +
                     std::to_string(list->resourceVersion) + "\"";
  if (end < list->items.size())
    body += R"(,"continue":")" + listId + ":" + std::to_string(end) + "\"";
  body += R"(},"items":[)";
  for (std::size_t i = offset; i < end; ++i) {
    if (i > offset) body += ",";
    body += *list->items[i];
  }
  body += "]}";
  if (end >= list->items.size()) lists_.erase(listId);
  lock.unlock();
  writeChunkedAnswer(stream, body);
  return true;
}

template <typename Stream>
void ApiServerDouble::getPod(Stream& stream, std::unique_lock<std::mutex>& lock,
                             const std::string& ns, const std::string& name) {
  const auto& pods = state_["pods"];
  const auto it = pods.find(ns + "/" + name);
  const std::string body = it == pods.end() ? notFoundJson(name) : *render("pods", it->second);
  lock.unlock();
  writeAnswer(stream, it == pods.end() ? 404 : 200, body);
}

// BindingREST.Create: the Binding is checked as a request first, then (after any hold) the
// pod it names, in the order GuaranteedUpdate does: existence, the UID precondition, then
// setPodNodeAndMetadata's own checks.
template <typename Stream>
void ApiServerDouble::bind(Stream& stream, std::unique_lock<std::mutex>& lock,
                           const std::string& ns, const std::string& name,
                           const std::string& body) {
  const auto answer = [&](unsigned status, const std::string& text) {
    lock.unlock();
    writeAnswer(stream, status, text);
  };
  rapidjson::Document binding;
  binding.Parse(body.c_str(), body.size());
  if (binding.HasParseError() || !binding.IsObject()) {
    return answer(
        400, statusJson(400, "BadRequest", "the body of the request was in an unknown format"));
  }
  if (stringAt(binding, {"metadata", "name"}) != name) {
    return answer(
        400, statusJson(400, "BadRequest", "name in URL does not match name in Binding object"));
  }
  if (const auto bodyNs = stringAt(binding, {"metadata", "namespace"});
      !bodyNs.empty() && bodyNs != ns) {
    return answer(400, statusJson(400, "BadRequest",
                                  "the namespace of the provided object does not match the "
                                  "namespace sent on the request"));
  }
  const std::string node = stringAt(binding, {"target", "name"});
  const std::string targetKind = stringAt(binding, {"target", "kind"});
  // ValidatePodBinding's field errors, as a 422 Invalid.
  std::string invalid;
  if (node.empty()) {
    invalid = "target.name: Required value";
  } else if (!targetKind.empty() && targetKind != "Node") {
    invalid = "target.kind: Invalid value: \"" + targetKind + "\": must be empty or 'Node'";
  }
  if (!invalid.empty()) {
    return answer(422,
                  statusJson(422, "Invalid", "Binding.core \"" + name + "\" is invalid: " + invalid,
                             "Binding", name));
  }
  const std::string uid = stringAt(binding, {"metadata", "uid"});

  if (bindingsHeld_) {
    const std::uint64_t ticket = nextBindingTicket_++;
    ++heldBindings_;
    changed_.wait(lock, [&] { return stopping_ || !bindingsHeld_ || ticket < releasedUpTo_; });
    --heldBindings_;
    if (stopping_) throw std::runtime_error("stopping with a binding held");
  }
  if (options_.bindingDelay.count() > 0) {
    lock.unlock();
    std::this_thread::sleep_for(options_.bindingDelay);
    lock.lock();
  }

  auto& pods = state_["pods"];
  const auto it = pods.find(ns + "/" + name);
  if (it == pods.end()) return answer(404, notFoundJson(name));
  Stored& stored = it->second;
  if (!uid.empty() && uid != stored.uid) {
    return answer(409, conflictJson("pods", name,
                                    "Precondition failed: UID in precondition: " + uid +
                                        ", UID in object meta: " + stored.uid));
  }
  if (stored.object.terminating) {
    return answer(409,
                  conflictJson("pods/binding", name,
                               "pod " + name + " is being deleted, cannot be assigned to a host"));
  }
  if (!stored.object.nodeName.empty()) {
    return answer(409, conflictJson("pods/binding", name,
                                    "pod " + name + " is already assigned to node \"" +
                                        stored.object.nodeName + "\""));
  }
  const std::uint64_t version = ++resourceVersion_;
  Event event{version, "pods", "MODIFIED", stored.object, stored.object, stored.uid};
  event.after->nodeName = node;
  stored.object.nodeName = node;
  stored.resourceVersion = version;
  record(std::move(event));
  answer(201, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})");
}

template <typename Stream>
void ApiServerDouble::streamWatch(Stream& stream, const std::string& resource, std::uint64_t from,
                                  std::uint64_t drops, int timeoutSeconds, bool bookmarks,
                                  bool selected) {
  http::response<http::empty_body> header{http::status::ok, 11};
  header.set(http::field::content_type, "application/json");
  header.chunked(true);
  http::response_serializer<http::empty_body> serializer{header};
  http::write_header(stream, serializer);

  std::unique_lock lock(mutex_);
  ++openWatches_;
  struct Closing {
    std::atomic<std::size_t>& open;
    ~Closing() { --open; }
  } closing{openWatches_};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
  auto cursor =
      std::upper_bound(history_.begin(), history_.end(), from,
                       [](std::uint64_t v, const Event& e) { return v < e.resourceVersion; }) -
      history_.begin();
  std::uint64_t bookmarkSeen = bookmarkGeneration_;
  const std::uint64_t errorsSeen = errorGeneration_;
  std::size_t written = 0;
  // The first event of this watch's resource from `at` on: the one that holds back the rest
  // until it is visible (setWatchDelay).
  const auto nextOwn = [&](std::size_t at) {
    while (at < history_.size() && history_[at].resource != resource) ++at;
    return at;
  };
  for (;;) {
    // Until there is something to send, the deadline, or a fault; a wait ends early when the
    // next event becomes visible.
    for (;;) {
      if (stopping_ || dropGeneration_ != drops || stalled_) break;
      if (bookmarkGeneration_ != bookmarkSeen || errorGeneration_ != errorsSeen) break;
      const auto now = std::chrono::steady_clock::now();
      const std::size_t own = nextOwn(static_cast<std::size_t>(cursor));
      if (own < history_.size() && history_[own].visibleAt <= now) break;
      if (now >= deadline) break;
      // A copy: wait_until reads its deadline again after waking, and history_ may have
      // grown (and moved) meanwhile, since the lock is released while waiting.
      const std::chrono::steady_clock::time_point until =
          own < history_.size() ? std::min(deadline, history_[own].visibleAt) : deadline;
      changed_.wait_until(lock, until);
    }
    if (stopping_ || dropGeneration_ != drops) {
      throw std::runtime_error("watch dropped");  // no last chunk: the client sees a cut
    }
    if (stalled_) {
      // Silent, deadline included, until the stall ends or the connection is dropped.
      changed_.wait(lock, [&] { return stopping_ || dropGeneration_ != drops || !stalled_; });
      continue;
    }
    std::vector<std::string> events;
    const auto now = std::chrono::steady_clock::now();
    for (; static_cast<std::size_t>(cursor) < history_.size(); ++cursor) {
      const Event& event = history_[cursor];
      if (event.resource != resource) continue;
      if (event.visibleAt > now) break;
      const bool wasIn = event.before && selectedBy(selected, *event.before);
      const bool isIn = event.after && selectedBy(selected, *event.after);
      std::string type;
      const ApiObject* object = nullptr;
      if (isIn) {
        type = wasIn ? "MODIFIED" : "ADDED";
        object = &*event.after;
      } else if (wasIn) {
        type = "DELETED";
        object = event.after ? &*event.after : &*event.before;
      } else {
        continue;
      }
      events.push_back(R"({"type":")" + type + R"(","object":)" +
                       renderObject(resource, *object, event.uid, event.resourceVersion) + "}\n");
    }
    // A bookmark must not claim a version whose events are still held back.
    const auto sentUpTo = [&] {
      return static_cast<std::size_t>(cursor) < history_.size()
                 ? history_[cursor].resourceVersion - 1
                 : resourceVersion_;
    };
    if (bookmarkGeneration_ != bookmarkSeen) {
      bookmarkSeen = bookmarkGeneration_;
      if (bookmarks) {
        events.push_back(
            R"({"type":"BOOKMARK","object":{"kind":")" + std::string(kindOf(resource)) +
            R"(","apiVersion":"v1","metadata":{"resourceVersion":")" + std::to_string(sentUpTo()) +
            R"(","annotations":{"k8s.io/initial-events-end":"true"}}}})" + "\n");
      }
    }
    const bool error = errorGeneration_ != errorsSeen;
    if (error) {
      events.push_back(
          R"({"type":"ERROR","object":)" +
          statusJson(static_cast<unsigned>(errorCode_), errorReason_, "injected error") + "}\n");
    }
    const bool timedOut = !error && events.empty() && std::chrono::steady_clock::now() >= deadline;
    lock.unlock();
    // Chunk boundaries fall anywhere in a real stream: every other event is split in two.
    for (const auto& event : events) {
      if (written++ % 2 == 1 && event.size() > 8) {
        const std::size_t half = event.size() / 2;
        net::write(stream, http::make_chunk(net::buffer(event.data(), half)));
        net::write(stream, http::make_chunk(net::buffer(event.data() + half, event.size() - half)));
      } else {
        net::write(stream, http::make_chunk(net::buffer(event)));
      }
    }
    if (error || timedOut) {
      net::write(stream, http::make_chunk_last());
      lock.lock();
      return;
    }
    lock.lock();
  }
}

std::string ApiServerDouble::uidOf(const std::string& resource, const std::string& key) const {
  const auto gen = generation_.find(resource + "/" + key);
  return "uid-" + resource + "-" + key + "-" +
         std::to_string(gen == generation_.end() ? 0 : gen->second);
}

std::shared_ptr<const std::string> ApiServerDouble::render(const std::string& resource,
                                                           const Stored& stored) const {
  // Every change of an object bumps its resourceVersion, as on the API server.
  if (!stored.rendered || stored.renderedVersion != stored.resourceVersion) {
    stored.rendered = std::make_shared<const std::string>(
        renderObject(resource, stored.object, stored.uid, stored.resourceVersion));
    stored.renderedVersion = stored.resourceVersion;
  }
  return stored.rendered;
}

namespace {

// Appends `members` (raw `"key":value,...`) to the object the writer is in, which already has
// a member: the writer puts a comma before whatever it writes next.
void appendMembers(rapidjson::StringBuffer& buffer, const std::string& members) {
  if (members.empty()) return;
  buffer.Put(',');
  std::memcpy(buffer.Push(members.size()), members.data(), members.size());
}

}  // namespace

std::string ApiServerDouble::renderObject(const std::string& resource, const ApiObject& object,
                                          const std::string& uid,
                                          std::uint64_t resourceVersion) const {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("kind");
  w.String(kindOf(resource));
  w.Key("apiVersion");
  w.String(apiVersionOf(resource));
  w.Key("metadata");
  w.StartObject();
  w.Key("name");
  w.String(object.name.c_str());
  if (namespaced(resource)) {
    w.Key("namespace");
    w.String(object.ns.c_str());
  }
  w.Key("uid");
  w.String(uid.c_str());
  w.Key("resourceVersion");
  w.String(std::to_string(resourceVersion).c_str());
  w.Key("labels");
  w.StartObject();
  for (const auto& [key, value] : object.labels) {
    w.Key(key.c_str());
    w.String(value.c_str());
  }
  w.EndObject();
  if (object.terminating) {
    w.Key("deletionTimestamp");
    w.String("2026-11-22T10:00:00Z");
  }
  if (object.metadataBulk.empty()) {
    w.Key("managedFields");  // bulk the extender must step over
    w.StartArray();
    w.StartObject();
    w.Key("manager");
    w.String("kube-controller-manager");
    w.EndObject();
    w.EndArray();
  }
  appendMembers(buffer, object.metadataBulk);
  w.EndObject();
  if (resource == "pods") {
    w.Key("spec");
    w.StartObject();
    w.Key("nodeName");
    w.String(object.nodeName.c_str());
    w.Key("schedulerName");
    w.String(object.schedulerName.c_str());
    if (!object.affinityJson.empty()) {
      w.Key("affinity");
      w.RawValue(object.affinityJson.c_str(), object.affinityJson.size(), rapidjson::kObjectType);
    }
    appendMembers(buffer, object.specBulk);
    w.EndObject();
    w.Key("status");
    w.StartObject();
    w.Key("phase");
    w.String(object.phase.c_str());
    if (!object.nominatedNodeName.empty()) {
      w.Key("nominatedNodeName");
      w.String(object.nominatedNodeName.c_str());
    }
    appendMembers(buffer, object.statusBulk);
    w.EndObject();
  } else {
    // A node's, namespace's or budget's spec and status: what the double does not model, as
    // their bulk (a budget's selector and disruptionsAllowed, say).
    for (const auto& [key, bulk] :
         {std::pair{"spec", &object.specBulk}, std::pair{"status", &object.statusBulk}}) {
      if (bulk->empty()) continue;
      const std::string value = "{" + *bulk + "}";
      w.Key(key);
      w.RawValue(value.c_str(), value.size(), rapidjson::kObjectType);
    }
  }
  w.EndObject();
  return buffer.GetString();
}

void ApiServerDouble::record(Event event) {
  if (watchDelayMax_.count() > 0) {
    std::uniform_int_distribution<std::int64_t> delay(watchDelayMin_.count(),
                                                      watchDelayMax_.count());
    event.visibleAt =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(delay(watchDelayRandom_));
  }
  history_.push_back(std::move(event));
  changed_.notify_all();
}

void ApiServerDouble::put(const std::string& resource, const ApiObject& object) {
  std::lock_guard lock(mutex_);
  const std::string key = keyOf(resource, object);
  auto& objects = state_[resource];
  const auto it = objects.find(key);
  const std::uint64_t version = ++resourceVersion_;
  Event event{version,      resource, it == objects.end() ? "ADDED" : "MODIFIED",
              std::nullopt, object,   ""};
  if (it == objects.end()) {
    ++generation_[resource + "/" + key];
    objects.emplace(key, Stored{object, version, uidOf(resource, key), nullptr, 0});
  }
  event.uid = uidOf(resource, key);
  if (it != objects.end()) {
    event.before = it->second.object;
    it->second.object = object;
    it->second.resourceVersion = version;
  }
  record(std::move(event));
}

void ApiServerDouble::remove(const std::string& resource, const std::string& key) {
  std::lock_guard lock(mutex_);
  auto& objects = state_[resource];
  const auto it = objects.find(key);
  if (it == objects.end()) return;
  const std::uint64_t version = ++resourceVersion_;
  Event event{version, resource, "DELETED", it->second.object, std::nullopt, it->second.uid};
  objects.erase(it);
  record(std::move(event));
}

void ApiServerDouble::preload(const std::string& resource, std::vector<ApiObject> objects) {
  std::lock_guard lock(mutex_);
  const std::uint64_t version = ++resourceVersion_;
  auto& stored = state_[resource];
  for (ApiObject& object : objects) {
    std::string key = keyOf(resource, object);
    ++generation_[resource + "/" + key];
    std::string uid = uidOf(resource, key);
    const auto it = stored
                        .insert_or_assign(std::move(key), Stored{std::move(object), version,
                                                                 std::move(uid), nullptr, 0})
                        .first;
    render(resource, it->second);
  }
  oldestRetained_ = resourceVersion_;
}

std::map<std::string, ApiObject> ApiServerDouble::objects(const std::string& resource) const {
  std::lock_guard lock(mutex_);
  std::map<std::string, ApiObject> out;
  if (const auto it = state_.find(resource); it != state_.end()) {
    for (const auto& [key, stored] : it->second) out.emplace(key, stored.object);
  }
  return out;
}

std::uint64_t ApiServerDouble::resourceVersion() const {
  std::lock_guard lock(mutex_);
  return resourceVersion_;
}

void ApiServerDouble::dropWatches() {
  std::lock_guard lock(mutex_);
  ++dropGeneration_;
  changed_.notify_all();
}

void ApiServerDouble::stallWatches(bool stalled) {
  std::lock_guard lock(mutex_);
  stalled_ = stalled;
  changed_.notify_all();
}

void ApiServerDouble::sendErrorEvent(int code, const std::string& reason) {
  std::lock_guard lock(mutex_);
  errorCode_ = code;
  errorReason_ = reason;
  ++errorGeneration_;
  changed_.notify_all();
}

void ApiServerDouble::sendBookmarks() {
  std::lock_guard lock(mutex_);
  ++bookmarkGeneration_;
  changed_.notify_all();
}

void ApiServerDouble::failNextRequests(int count, unsigned status) {
  std::lock_guard lock(mutex_);
  failCount_ = count;
  failStatus_ = status;
}

void ApiServerDouble::compact() {
  std::lock_guard lock(mutex_);
  // Open watches keep their place, as etcd's do; only new ones from before this get 410.
  oldestRetained_ = resourceVersion_;
}

void ApiServerDouble::expireNextContinue() {
  std::lock_guard lock(mutex_);
  expireNextContinue_ = true;
}

void ApiServerDouble::lagNextWatch() {
  std::lock_guard lock(mutex_);
  lagNextWatch_ = true;
}

void ApiServerDouble::setToken(const std::string& token) {
  std::lock_guard lock(mutex_);
  options_.token = token;
}

std::string ApiServerDouble::uid(const std::string& resource, const std::string& key) const {
  std::lock_guard lock(mutex_);
  const auto objects = state_.find(resource);
  if (objects != state_.end()) {
    if (const auto it = objects->second.find(key); it != objects->second.end()) {
      return it->second.uid;
    }
  }
  throw std::out_of_range("the double holds no " + resource + " " + key);
}

void ApiServerDouble::holdBindings(bool held) {
  std::lock_guard lock(mutex_);
  bindingsHeld_ = held;
  if (!held) releasedUpTo_ = nextBindingTicket_;
  changed_.notify_all();
}

void ApiServerDouble::releaseBindings(std::size_t count) {
  std::lock_guard lock(mutex_);
  releasedUpTo_ = std::min(releasedUpTo_ + count, nextBindingTicket_);
  changed_.notify_all();
}

std::size_t ApiServerDouble::heldBindings() const {
  std::lock_guard lock(mutex_);
  return heldBindings_;
}

void ApiServerDouble::setWatchDelay(std::chrono::milliseconds min, std::chrono::milliseconds max,
                                    std::uint32_t seed) {
  if (min.count() < 0 || max < min)
    throw std::invalid_argument("setWatchDelay: need 0 <= min <= max");
  std::lock_guard lock(mutex_);
  watchDelayMin_ = min;
  watchDelayMax_ = max;
  watchDelayRandom_.seed(seed);
}

std::vector<std::string> ApiServerDouble::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::size_t ApiServerDouble::openWatches() const { return openWatches_.load(); }

}  // namespace testing
