// The real HTTP server object on 127.0.0.1 (port 0), over the example cluster, answering
// the example request bodies with the answers the README shows (examples/responses/).
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <atomic>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <ostream>
#include <thread>

#include "server/http_server.hpp"
#include "server/options.hpp"
#include "test/testing/example_cluster.hpp"
#include "test/testing/http_client.hpp"
#include "test/testing/sockets.hpp"

namespace {

struct ExampleServer {
  testing::ExampleCluster cluster;
  boost::asio::thread_pool compute{2};
  server::HttpServer http;

  explicit ExampleServer(std::size_t maxBodyBytes = server::kDefaultMaxBodyBytes,
                         std::size_t maxConnections = 4096,
                         std::chrono::seconds headerTimeout = std::chrono::seconds(10))
      : http({{{"--listen", "127.0.0.1", 0, server::Served::All, nullptr, {}}},
              maxBodyBytes,
              2,
              2,
              maxConnections,
              headerTimeout},
             cluster.routerContext(), compute) {
    http.start();
  }

  std::uint16_t port() const { return http.localEndpoint().port(); }
};

rapidjson::Document parse(const std::string& text) {
  rapidjson::Document document;
  document.Parse(text.data(), text.size());
  BOOST_REQUIRE_MESSAGE(!document.HasParseError(), "not JSON: " << text.substr(0, 200));
  return document;
}

struct ExampleCase {
  std::string endpoint;
  std::string request;   // examples/requests/<request>.json
  std::string response;  // examples/responses/<response>.json
};
std::ostream& operator<<(std::ostream& out, const ExampleCase& c) {
  return out << c.endpoint << " " << c.request;
}

const std::vector<ExampleCase> kExamples = {
    {"/filter", "filter-names", "filter-names"},
    {"/prioritize", "prioritize-names", "prioritize-names"},
    {"/prioritize", "prioritize-nodes", "prioritize-nodes"},
    {"/preempt", "preempt-meta", "preempt-meta"},
    {"/explain", "filter-names", "explain-names"},
};

std::string exampleRequest(const std::string& name) {
  return testing::readSourceFile("examples/requests/" + name + ".json");
}

std::string requestText(std::string_view target, const std::string& body) {
  return "POST " + std::string(target) +
         " HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
         body;
}

// The example's full-Nodes request grown past the size that the session reads in steps
// (server::kDirectReadBytes): its 12 nodes 8 times over, each with 16 KB of status holding
// what a careless cutter would trip on, `edit` applied to the document at the end.
std::string largeNodesRequest(void (*edit)(rapidjson::Document&) = nullptr) {
  rapidjson::Document request = parse(exampleRequest("filter-nodes"));
  auto& allocator = request.GetAllocator();
  rapidjson::Value items(rapidjson::kArrayType);
  std::string note;
  while (note.size() < 16 * 1024) note += "{\"[x]\\\u00e9} ";
  for (int copy = 0; copy < 8; ++copy) {
    for (const auto& item : request["Nodes"]["items"].GetArray()) {
      rapidjson::Value node(item, allocator);
      rapidjson::Value status(rapidjson::kObjectType);
      status.AddMember("note", rapidjson::Value(note.c_str(), allocator), allocator);
      node.AddMember("status", status, allocator);
      items.PushBack(node, allocator);
    }
  }
  request["Nodes"]["items"] = items;
  if (edit != nullptr) edit(request);
  rapidjson::StringBuffer text;
  rapidjson::Writer<rapidjson::StringBuffer> writer(text);
  request.Accept(writer);
  BOOST_REQUIRE(text.GetSize() > server::kDirectReadBytes);
  return {text.GetString(), text.GetSize()};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_server)

BOOST_DATA_TEST_CASE(answers_the_examples, boost::unit_test::data::make(kExamples), c) {
  ExampleServer server;
  testing::HttpClient client(server.port());
  const auto reply = client.post(c.endpoint, exampleRequest(c.request));
  BOOST_TEST(reply.status == 200u);
  BOOST_TEST(reply.headers[boost::beast::http::field::content_type] == "application/json");
  const auto want = parse(testing::readSourceFile("examples/responses/" + c.response + ".json"));
  BOOST_TEST((parse(reply.body) == want), "got " << reply.body);
}

// /preempt with the victims sent as whole pods (kube-scheduler's nodeCacheCapable: false), as
// the example's preemptor: node-b2's victim leaves batch-1 in the way (its anti-affinity
// refuses the pod) and node-c2's none leaves web-0 (the pod's refuses it), both of lower
// priority, so the extender adds them; on node-c3 the pod nominated there, of equal priority,
// cannot be evicted. The answer is in UIDs, and /metrics counts each candidate's outcome.
BOOST_AUTO_TEST_CASE(preempt_adds_victims_and_counts_what_it_did) {
  ExampleServer server;
  testing::HttpClient client(server.port());
  rapidjson::Document request = parse(exampleRequest("preempt-meta"));
  request.RemoveMember("NodeNameToMetaVictims");
  request.RemoveMember("NodeNameToVictims");
  rapidjson::Document victims = parse(R"({
    "node-b2": {"Pods": [{"metadata": {"name": "node-agent-node-b2", "namespace": "kube-system",
                                       "uid": "uid-kube-system-node-agent-node-b2"},
                          "spec": {"priority": 0, "nodeName": "node-b2"}}],
                "NumPDBViolations": 0},
    "node-c2": {"Pods": null, "NumPDBViolations": 0},
    "node-c3": {"Pods": [], "NumPDBViolations": 0}
  })");
  request.AddMember("NodeNameToVictims", rapidjson::Value(victims, request.GetAllocator()),
                    request.GetAllocator());
  rapidjson::StringBuffer body;
  rapidjson::Writer<rapidjson::StringBuffer> writer(body);
  request.Accept(writer);

  const auto reply = client.post("/preempt", {body.GetString(), body.GetSize()});
  BOOST_TEST_REQUIRE(reply.status == 200u, reply.body);
  const auto want = parse(R"({"NodeNameToMetaVictims": {
    "node-b2": {"Pods": [{"UID": "uid-kube-system-node-agent-node-b2"},
                         {"UID": "uid-analytics-batch-1"}], "NumPDBViolations": 1},
    "node-c2": {"Pods": [{"UID": "uid-shop-web-0"}], "NumPDBViolations": 0}
  }})");
  BOOST_TEST((parse(reply.body) == want), "got " << reply.body);

  const std::string metrics = client.get("/metrics").body;
  for (const auto* line :
       {R"(scheduler_extender_preemption_candidates_total{outcome="extended"} 2)",
        R"(scheduler_extender_preemption_candidates_total{outcome="rejected"} 1)"}) {
    BOOST_TEST(metrics.find(std::string(line) + "\n") != std::string::npos, line);
  }
  BOOST_TEST(metrics.find(R"(outcome="kept")") == std::string::npos);
}

// Full Node objects come back as the very bytes that were sent.
BOOST_AUTO_TEST_CASE(filter_with_nodes_echoes_the_sent_objects) {
  ExampleServer server;
  testing::HttpClient client(server.port());
  const std::string request = exampleRequest("filter-nodes");
  const auto reply = client.post("/filter", request);
  BOOST_REQUIRE(reply.status == 200u);
  const auto got = parse(reply.body);
  const auto byNames = parse(testing::readSourceFile("examples/responses/filter-names.json"));
  BOOST_TEST((got["FailedNodes"] == byNames["FailedNodes"]));
  BOOST_TEST(got["NodeNames"].IsNull());

  const auto sent = parse(request);
  const auto& items = got["Nodes"]["items"];
  BOOST_REQUIRE(items.Size() == byNames["NodeNames"].Size());
  for (rapidjson::SizeType i = 0; i < items.Size(); ++i) {
    BOOST_TEST((items[i]["metadata"]["name"] == byNames["NodeNames"][i]));
    bool found = false;
    for (const auto& item : sent["Nodes"]["items"].GetArray()) found |= item == items[i];
    BOOST_TEST(found);
  }
  // Byte-for-byte: the first feasible node's text appears verbatim in the answer.
  const std::string firstNode = "\"name\": \"node-a2\"";
  BOOST_TEST(reply.body.find(firstNode) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(keeps_serving_after_bad_input_on_the_same_connection) {
  ExampleServer server;
  testing::HttpClient client(server.port());
  const auto before = client.post("/filter", exampleRequest("filter-names"));
  for (const char* bad : {"{", "[]", R"({"Pod":[]})", R"({"Pod":{"metadata":{"name":7}}})",
                          R"({"Pod":{},"NodeNames":{"a":1}})", "\xff\xfe"}) {
    const auto reply = client.post("/filter", bad);
    BOOST_TEST(reply.status == 400u, bad);
    BOOST_TEST(parse(reply.body).HasMember("error"));
  }
  const auto after = client.post("/filter", exampleRequest("filter-names"));
  BOOST_TEST(after.status == 200u);
  BOOST_TEST(after.body == before.body);
}

BOOST_AUTO_TEST_CASE(oversize_body_gets_413_and_the_connection_closes) {
  ExampleServer server(4096);
  testing::HttpClient client(server.port());
  const auto reply = client.post("/filter", std::string(8192, ' '));
  BOOST_TEST(reply.status == 413u);
  BOOST_TEST(reply.body ==
             R"json({"error":"request body exceeds --max-body-bytes (4096 bytes)"})json");
  BOOST_TEST(client.closedByServer());
  testing::HttpClient next(server.port());
  BOOST_TEST(next.get("/healthz").status == 200u);
}

BOOST_AUTO_TEST_CASE(malformed_http_gets_400_with_a_json_error) {
  ExampleServer server;
  testing::HttpClient client(server.port());
  const auto reply = client.raw("POST /filter HTTP/1.1\r\nContent-Length: banana\r\n\r\n");
  BOOST_TEST(reply.status == 400u);
  BOOST_TEST(parse(reply.body)["error"].GetString() ==
             std::string("malformed HTTP request: bad Content-Length"));
}

// Bodies of a megabyte and more skip the parser's 64 KB steps; they must arrive whole, and
// the connection must go on with the next request.
BOOST_AUTO_TEST_CASE(large_bodies_are_read_whole_and_keep_alive_holds) {
  ExampleServer server;
  testing::HttpClient client(server.port());
  const std::string small = exampleRequest("filter-nodes");
  const std::string large = small + std::string(3u << 20, ' ');  // JSON allows trailing space
  const auto want = client.post("/filter", small);
  for (int i = 0; i < 3; ++i) {
    const auto reply = client.post("/filter", large);
    BOOST_TEST(reply.status == 200u);
    BOOST_TEST(reply.body == want.body);
  }
  // Two requests in one write: the large body must not swallow the next request's bytes.
  const std::string names = exampleRequest("filter-names");
  BOOST_TEST(client.raw(requestText("/filter", large) + requestText("/filter", names)).body ==
             want.body);
  BOOST_TEST((parse(client.raw("").body) ==
              parse(testing::readSourceFile("examples/responses/filter-names.json"))));
}

// A large full-Nodes body arriving in small pieces goes through the session's streamed decode
// (that its items are decoded early is checked in extender_args_stream_test); the answer must
// be the router's own for the body decoded whole, also when the body is one that only the
// whole decode can read right (a second "items", escapes) or reject.
BOOST_AUTO_TEST_CASE(large_full_nodes_bodies_in_small_writes_get_the_whole_body_answer) {
  ExampleServer server;
  const server::Router router(server.cluster.routerContext());
  const std::vector<std::pair<std::string_view, std::string>> bodies = {
      {"regular", largeNodesRequest()},
      {"items twice", largeNodesRequest([](rapidjson::Document& d) {
         rapidjson::Value first(d["Nodes"]["items"][0], d.GetAllocator());
         rapidjson::Value items(rapidjson::kArrayType);
         items.PushBack(first, d.GetAllocator());
         d["Nodes"].AddMember("Items", items, d.GetAllocator());
       })},
      {"a bad item", largeNodesRequest([](rapidjson::Document& d) {
         d["Nodes"]["items"][50]["metadata"]["name"].SetInt(7);
       })},
  };
  for (const auto& [name, body] : bodies) {
    for (const std::string_view target : {"/filter", "/prioritize", "/explain"}) {
      BOOST_TEST_CONTEXT(name << " to " << target) {
        server::Request whole{server::http::verb::post, target, 11};
        whole.body() = body;
        whole.prepare_payload();
        const auto want = router.handle(whole);
        const std::string wantBody = want.body().flat();
        testing::HttpClient client(server.port());
        const auto reply = client.rawInPieces(requestText(target, body), 4093);
        BOOST_TEST(reply.status == want.result_int());
        const auto differ =
            std::mismatch(reply.body.begin(), reply.body.end(), wantBody.begin(), wantBody.end());
        BOOST_TEST((reply.body == wantBody), "answers differ from byte "
                                                 << differ.first - reply.body.begin() << " of "
                                                 << wantBody.size());
      }
    }
  }
}

// curl asks before sending bodies over 1 MB, and waits a second for an answer.
BOOST_AUTO_TEST_CASE(expect_100_continue_gets_the_go_ahead) {
  ExampleServer server;
  testing::HttpClient client(server.port());
  const std::string body = exampleRequest("prioritize-names");
  const auto interim = client.raw(
      "POST /prioritize HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n");
  BOOST_TEST(interim.status == 100u);
  const auto reply = client.raw(body);
  BOOST_TEST(reply.status == 200u);
  BOOST_TEST((parse(reply.body) ==
              parse(testing::readSourceFile("examples/responses/prioritize-names.json"))));
}

BOOST_AUTO_TEST_CASE(concurrent_clients_get_the_same_answers) {
  ExampleServer server;
  const auto want = parse(testing::readSourceFile("examples/responses/prioritize-names.json"));
  const std::string request = exampleRequest("prioritize-names");
  std::atomic<int> wrong{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c) {
    // Boost.Test is not thread-safe: the client threads only count, the test thread checks.
    clients.emplace_back([&] {
      testing::HttpClient client(server.port());
      for (int i = 0; i < 25; ++i) {
        const auto reply = client.post("/prioritize", request);
        rapidjson::Document got;
        got.Parse(reply.body.data(), reply.body.size());
        if (reply.status != 200u || got.HasParseError() || !(got == want)) ++wrong;
      }
    });
  }
  for (auto& t : clients) t.join();
  BOOST_TEST(wrong.load() == 0);
}

BOOST_AUTO_TEST_CASE(connections_past_the_cap_are_closed_on_accept) {
  ExampleServer server(server::kDefaultMaxBodyBytes, 2);
  testing::HttpClient first(server.port());
  testing::HttpClient second(server.port());
  // An answer on each proves both sessions exist before the third arrives.
  BOOST_TEST(first.get("/healthz").status == 200u);
  BOOST_TEST(second.get("/healthz").status == 200u);
  testing::HttpClient third(server.port());
  BOOST_TEST(third.closedByServer());
  BOOST_TEST(first.get("/healthz").status == 200u);
}

// Slowloris: a header still incomplete after the header timeout loses its connection; a
// kept-alive connection that is merely idle keeps it (the idle wait is longer).
BOOST_AUTO_TEST_CASE(a_slow_header_is_cut_off_but_an_idle_connection_is_not) {
  ExampleServer server(server::kDefaultMaxBodyBytes, 4096, std::chrono::seconds(1));
  testing::HttpClient idle(server.port());
  BOOST_TEST(idle.get("/healthz").status == 200u);

  boost::asio::io_context io;
  boost::asio::ip::tcp::socket slow(io);
  slow.connect({boost::asio::ip::make_address("127.0.0.1"), server.port()});
  boost::asio::write(slow,
                     boost::asio::buffer(std::string("POST /filter HTTP/1.1\r\nHost: x\r\n")));
  const auto start = std::chrono::steady_clock::now();
  char byte;
  boost::system::error_code ec;
  slow.read_some(boost::asio::buffer(&byte, 1), ec);  // returns when the server closes
  BOOST_TEST((ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset),
             ec.message());
  BOOST_TEST((std::chrono::steady_clock::now() - start < std::chrono::seconds(30)));

  // The idle connection outlived the header timeout and still serves.
  BOOST_TEST(idle.get("/healthz").status == 200u);
}

// An answer larger than a TLS record, or streamed, leaves in several writes: the server's end
// of a connection has Nagle's algorithm off, so that the last, short write is not held for the
// caller's delayed acknowledgement. The server object runs in this process, so the test reads
// the option off its socket.
BOOST_AUTO_TEST_CASE(accepted_connections_turn_nagles_algorithm_off) {
  ExampleServer server;
  testing::HttpClient client(server.port());
  BOOST_TEST_REQUIRE(client.get("/healthz").status == 200u);  // accepted and served
  const auto noDelay = testing::noDelayOfConnection(server.port(), client.localPort());
  BOOST_TEST_REQUIRE(noDelay.has_value(), "no socket of the server on port "
                                              << server.port() << " is connected to the client's "
                                              << client.localPort());
  BOOST_TEST(*noDelay,
             "Nagle's algorithm is on (no TCP_NODELAY) on the connection the server accepted");
}

BOOST_AUTO_TEST_CASE(drain_answers_requests_already_read) {
  ExampleServer server;
  testing::HttpClient client(server.port());
  BOOST_TEST(client.get("/readyz").status == 200u);
  BOOST_TEST(server.http.drain(std::chrono::seconds(5)) == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
