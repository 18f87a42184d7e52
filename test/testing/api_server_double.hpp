#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace testing {

// What the double holds of a namespace, node, pod or PodDisruptionBudget: the fields the
// extender reads (a budget's spec and status come as bulk).
struct ApiObject {
  std::string name;
  std::string ns;  // pods and budgets
  std::map<std::string, std::string> labels;
  std::string nodeName;  // pods: spec.nodeName
  std::string phase = "Running";
  std::string nominatedNodeName;
  std::string schedulerName = "default-scheduler";  // pods: spec.schedulerName
  bool terminating = false;
  std::string affinityJson;  // pods: spec.affinity as JSON, "" for none
  // Members the extender does not read, served as they are after those above: raw JSON
  // members (`"key":value,...`, no braces) of metadata, spec and status, so that a
  // benchmark's objects are as large and as nested as the real ones they copy. With
  // metadata members the placeholder managedFields is left out.
  std::string metadataBulk;
  std::string specBulk;
  std::string statusBulk;

  bool operator==(const ApiObject&) const = default;
};

// An API server for the informers' and the binding's tests, speaking the protocol the way
// kube-apiserver does for /api/v1/{namespaces,nodes,pods} and
// /apis/policy/v1/poddisruptionbudgets:
//  - one resourceVersion counter for every change, as etcd's revision;
//  - LIST with limit/continue, pages served from a snapshot frozen at the first page's
//    resourceVersion and streamed chunked; an expired continue token answers 410 Expired;
//  - WATCH from a resourceVersion as a chunked stream of JSON events, replaying the history
//    after it, then live events; BOOKMARKs when asked; the stream ends after
//    timeoutSeconds; a resourceVersion older than the retained history answers 410 Gone
//    (as a status, or as an ERROR event after 200, the way the watch cache does);
//  - the pod field selector `status.phase!=Succeeded,status.phase!=Failed`, with a pod that
//    leaves the selection seen by watchers as DELETED;
//  - GET of one pod, /api/v1/namespaces/{ns}/pods/{name} (404 Status when missing);
//  - POST of a v1 Binding to /api/v1/namespaces/{ns}/pods/{name}/binding, as BindingREST
//    (pkg/registry/core/pod/storage): 404 for a missing pod, 409 Conflict for a UID
//    precondition that fails, a pod already assigned or one being deleted, 400/422 for a
//    malformed Binding; on success spec.nodeName is set (a MODIFIED event) and 201 Created;
//  - a bearer-token check (401), and TLS with the test PKI.
// Faults are injected between requests or into open watches: dropped and stalled
// connections, ERROR events, failing requests, compaction, expired continue tokens, held
// bindings, and watch events that become visible only after a random delay.
class ApiServerDouble {
 public:
  struct Options {
    bool tls = false;
    std::string token;              // required bearer token; "" accepts any request
    bool goneAsErrorEvent = false;  // 410 for a too-old watch as 200 + ERROR event
    bool ignoreLimit = false;       // every LIST answered whole, in one page
    // Every binding waits this long before it is carried out, as a busy API server's would.
    std::chrono::milliseconds bindingDelay{0};
  };

  explicit ApiServerDouble(Options options);
  ~ApiServerDouble();
  ApiServerDouble(const ApiServerDouble&) = delete;
  ApiServerDouble& operator=(const ApiServerDouble&) = delete;

  std::uint16_t port() const { return port_; }
  std::string url() const;

  // --- state: each change takes the next resourceVersion and is seen by watchers ---
  // `resource` is "namespaces", "nodes", "pods" or "poddisruptionbudgets"; pods and budgets
  // are keyed namespace/name.
  void put(const std::string& resource, const ApiObject& object);
  void remove(const std::string& resource, const std::string& key);
  // Stores objects that were there before anyone watched, e.g. a whole benchmark cluster:
  // one resourceVersion for them all and no events, so a watch from before gets 410 (as
  // after compact()) and memory holds the objects once, not a history of their creation.
  void preload(const std::string& resource, std::vector<ApiObject> objects);
  std::map<std::string, ApiObject> objects(const std::string& resource) const;
  std::uint64_t resourceVersion() const;
  // The UID of a stored object (pods keyed namespace/name), as its metadata.uid renders;
  // throws std::out_of_range when there is none.
  std::string uid(const std::string& resource, const std::string& key) const;

  // --- faults ---
  void dropWatches();               // close open watches without ending them
  void stallWatches(bool stalled);  // keep watches open but send nothing
  void sendErrorEvent(int code, const std::string& reason);  // to open watches, then end them
  void sendBookmarks();  // a BOOKMARK at the current version to every watch
  // Answer the next `count` requests with this status instead; 0 closes their connections
  // unanswered, as a crashed API server or a reset behind its load balancer.
  void failNextRequests(int count, unsigned status);
  void compact();  // forget history: watches from an older resourceVersion get 410
  // The next watch answers 504 "Too large resource version", as a server whose watch cache
  // lags behind the resourceVersion asked for (after a restart or a fail-over).
  void lagNextWatch();
  void expireNextContinue();  // the next page asked for by continue token: 410 Expired
  void setToken(const std::string& token);  // rotate the accepted token
  // While held, a binding request waits (its connection open, nothing decided) until
  // holdBindings(false) or releaseBindings() lets it go; it is then judged against the pods
  // as they are at that moment. heldBindings() says how many wait, so that a test can
  // order other things after a binding has arrived.
  void holdBindings(bool held);
  void releaseBindings(std::size_t count);  // let this many held bindings go, oldest first
  std::size_t heldBindings() const;
  // Each change recorded from now on reaches watches only after a delay drawn from
  // [min, max] (std::mt19937 seeded with `seed`), as a lagging watch cache's; a watch still
  // sends its events in resourceVersion order, each once it and every earlier event of that
  // resource are visible. LIST and GET are not delayed: they read storage, as with
  // resourceVersion "". {0, 0} sends events at once, as without a delay.
  void setWatchDelay(std::chrono::milliseconds min, std::chrono::milliseconds max,
                     std::uint32_t seed);

  // Requests seen, for assertions: "LIST pods", "WATCH nodes", "GET pods ns/name",
  // "BIND ns/name", ...
  std::vector<std::string> requests() const;
  std::size_t openWatches() const;

 private:
  struct Event {
    std::uint64_t resourceVersion;
    std::string resource;
    std::string type;  // ADDED, MODIFIED, DELETED
    std::optional<ApiObject> before;
    std::optional<ApiObject> after;
    std::string uid;
    // When watches may send it (setWatchDelay); the epoch for at once.
    std::chrono::steady_clock::time_point visibleAt{};
  };
  struct Stored {
    ApiObject object;
    std::uint64_t resourceVersion;
    std::string uid;
    // The object's JSON at `renderedVersion`, made when first served (by preload for
    // preloaded objects): a list then costs the double a copy of each item, not an encoding,
    // and a benchmark's lists measure the client. Guarded by the double's mutex.
    mutable std::shared_ptr<const std::string> rendered;
    mutable std::uint64_t renderedVersion = 0;
  };
  struct FrozenList {
    std::string resource;
    std::uint64_t resourceVersion;
    std::vector<std::shared_ptr<const std::string>> items;  // JSON
    std::size_t next = 0;
  };
  struct Connection;

  void accept();
  void serve(std::shared_ptr<Connection> connection);
  template <typename Stream>
  void serveStream(Stream& stream, Connection& connection);
  template <typename Stream>
  bool handle(Stream& stream, boost::beast::http::verb method, const std::string& target,
              const std::string& authorization, const std::string& requestBody);
  // GET of one pod and POST of its binding, under the lock `lock` holds; they answer and
  // unlock.
  template <typename Stream>
  void getPod(Stream& stream, std::unique_lock<std::mutex>& lock, const std::string& ns,
              const std::string& name);
  template <typename Stream>
  void bind(Stream& stream, std::unique_lock<std::mutex>& lock, const std::string& ns,
            const std::string& name, const std::string& body);
  template <typename Stream>
  // `drops`: dropGeneration_ when the request arrived.
  void streamWatch(Stream& stream, const std::string& resource, std::uint64_t from,
                   std::uint64_t drops, int timeoutSeconds, bool bookmarks, bool selected);
  std::shared_ptr<const std::string> render(const std::string& resource,
                                            const Stored& stored) const;
  std::string renderObject(const std::string& resource, const ApiObject& object,
                           const std::string& uid, std::uint64_t resourceVersion) const;
  std::string uidOf(const std::string& resource, const std::string& key) const;
  void record(Event event);

  Options options_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::unique_ptr<boost::asio::ssl::context> tls_;
  std::uint16_t port_ = 0;
  std::thread acceptThread_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool stopping_ = false;
  std::uint64_t resourceVersion_ = 100;
  std::uint64_t oldestRetained_ = 100;  // watches from before this get 410
  std::map<std::string, std::map<std::string, Stored>> state_;
  std::map<std::string, std::uint64_t> generation_;  // per key, for UIDs of recreated objects
  std::vector<Event> history_;
  std::map<std::string, FrozenList> lists_;
  std::uint64_t nextListId_ = 1;
  std::uint64_t dropGeneration_ = 0;
  std::uint64_t bookmarkGeneration_ = 0;
  std::uint64_t errorGeneration_ = 0;
  int errorCode_ = 0;
  std::string errorReason_;
  bool stalled_ = false;
  bool expireNextContinue_ = false;
  bool lagNextWatch_ = false;
  int failCount_ = 0;
  unsigned failStatus_ = 500;
  bool bindingsHeld_ = false;
  std::size_t heldBindings_ = 0;
  // Held bindings take tickets in arrival order; those below releasedUpTo_ may go.
  std::uint64_t nextBindingTicket_ = 0;
  std::uint64_t releasedUpTo_ = 0;
  std::chrono::milliseconds watchDelayMin_{0};
  std::chrono::milliseconds watchDelayMax_{0};
  std::mt19937 watchDelayRandom_;
  std::vector<std::string> requests_;
  std::atomic<std::size_t> openWatches_{0};
  std::list<std::shared_ptr<Connection>> connections_;
  std::vector<std::thread> threads_;
};

}  // namespace testing
