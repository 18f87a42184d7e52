#include "scheduling/informers/client_config.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>

namespace client_config_test {

namespace fs = std::filesystem;
using scheduling::informers::ClientConfig;

// A scratch directory holding the files one case writes.
struct Scratch {
  Scratch() : dir(fs::temp_directory_path() / ("sx-kubeconfig-" + std::to_string(::getpid()))) {
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    const auto path = dir / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }
  fs::path dir;
};

std::string kubeconfig(const std::string& cluster, const std::string& user,
                       const std::string& currentContext = "ctx") {
  return "apiVersion: v1\nkind: Config\ncurrent-context: " + currentContext +
         "\ncontexts:\n- name: ctx\n  context: {cluster: c1, user: u1}\n"
         "clusters:\n- name: c1\n  cluster:\n" +
         cluster + "users:\n- name: u1\n  user:\n" + user;
}

struct Case {
  const char* name;
  std::string cluster;  // indented entries of clusters[c1].cluster
  std::string user;     // indented entries of users[u1].user
  std::function<bool(const ClientConfig&)> check;
};

std::ostream& operator<<(std::ostream& out, const Case& c) { return out << c.name; }

const Case kCases[] = {
    {"https with a port, inline CA and token",
     "    server: https://10.0.0.1:6443\n    certificate-authority-data: LS0tQ0EtLS0=\n",
     "    token: abc\n",
     [](const ClientConfig& c) {
       return c.https && c.host == "10.0.0.1" && c.port == "6443" && c.caPem == "---CA---" &&
              c.bearerToken == "abc" && c.basePath.empty();
     }},
    {"default https port and a base path behind a proxy",
     "    server: https://api.example.com/k8s/clusters/c-1/\n", "    token: t\n",
     [](const ClientConfig& c) {
       return c.host == "api.example.com" && c.port == "443" && c.basePath == "/k8s/clusters/c-1";
     }},
    {"plain http defaults to port 80", "    server: http://localhost\n", "    token: t\n",
     [](const ClientConfig& c) { return !c.https && c.port == "80"; }},
    {"IPv6 literal", "    server: https://[fd00::1]:6443\n", "    token: t\n",
     [](const ClientConfig& c) { return c.host == "fd00::1" && c.port == "6443"; }},
    {"insecure and tls-server-name",
     "    server: https://1.2.3.4\n    insecure-skip-tls-verify: true\n"
     "    tls-server-name: kubernetes.default\n",
     "    token: t\n",
     [](const ClientConfig& c) {
       return c.insecureSkipTlsVerify && c.tlsServerName == "kubernetes.default";
     }},
    {"file references resolve against the kubeconfig's directory",
     "    server: https://1.2.3.4\n    certificate-authority: pki/ca.pem\n",
     "    client-certificate: pki/client.pem\n    client-key: pki/client-key.pem\n"
     "    tokenFile: token\n",
     [](const ClientConfig& c) {
       return c.caPem == "CA" && c.clientCertPem == "CERT" && c.clientKeyPem == "KEY" &&
              c.tokenFile.ends_with("/token") && c.bearerToken.empty();
     }},
    {"inline client certificate and key", "    server: https://1.2.3.4\n",
     "    client-certificate-data: Q0VSVA==\n    client-key-data: S0VZ\n",
     [](const ClientConfig& c) { return c.clientCertPem == "CERT" && c.clientKeyPem == "KEY"; }},
};

struct ErrorCase {
  const char* name;
  std::string text;
  const char* mentions;
};

std::ostream& operator<<(std::ostream& out, const ErrorCase& c) { return out << c.name; }

const ErrorCase kErrors[] = {
    {"no current-context", kubeconfig("    server: https://a\n", "    token: t\n", "\"\""),
     "current-context is not set"},
    {"unknown context", kubeconfig("    server: https://a\n", "    token: t\n", "other"),
     "no context named \"other\""},
    {"no server", kubeconfig("    insecure-skip-tls-verify: true\n", "    token: t\n"),
     "clusters[c1].cluster.server: not set"},
    {"not a URL", kubeconfig("    server: 10.0.0.1:6443\n", "    token: t\n"),
     "clusters[c1].cluster.server: \"10.0.0.1:6443\" is not an http:// or https:// URL"},
    {"bad base64",
     kubeconfig("    server: https://a\n    certificate-authority-data: '@@@'\n", "    token: t\n"),
     "certificate-authority-data: not valid base64"},
    {"certificate without key",
     kubeconfig("    server: https://a\n", "    client-certificate-data: Q0VSVA==\n"),
     "users[u1].user: client-certificate and client-key must be set together"},
    {"exec plugin only", kubeconfig("    server: https://a\n", "    exec: {command: aws}\n"),
     "exec and auth-provider plugins are not supported"},
    {"missing referenced file",
     kubeconfig("    server: https://a\n    certificate-authority: nowhere.pem\n",
                "    token: t\n"),
     "clusters[c1].cluster.certificate-authority: cannot read"},
};

}  // namespace client_config_test

using namespace client_config_test;

BOOST_AUTO_TEST_SUITE(client_config)

BOOST_DATA_TEST_CASE(kubeconfig_fields_are_read_as_client_go_reads_them,
                     boost::unit_test::data::make(kCases), c) {
  Scratch scratch;
  scratch.write("pki/ca.pem", "CA");
  scratch.write("pki/client.pem", "CERT");
  scratch.write("pki/client-key.pem", "KEY");
  const auto path = scratch.write("config", kubeconfig(c.cluster, c.user));
  const auto config = scheduling::informers::loadKubeconfig(path);
  BOOST_TEST(c.check(config));
  BOOST_TEST(config.origin.find("context ctx") != std::string::npos);
}

BOOST_DATA_TEST_CASE(kubeconfig_errors_name_the_file_and_field,
                     boost::unit_test::data::make(kErrors), c) {
  Scratch scratch;
  const auto path = scratch.write("config", c.text);
  try {
    scheduling::informers::loadKubeconfig(path);
    BOOST_FAIL("no error");
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    BOOST_TEST(message.find(path) != std::string::npos, message);
    BOOST_TEST(message.find(c.mentions) != std::string::npos, message);
  }
}

// $KUBECONFIG's list: the first file to set a value wins, entries are found in any file, and
// a missing file in the list is skipped.
BOOST_AUTO_TEST_CASE(a_kubeconfig_list_merges_like_kubectl) {
  Scratch scratch;
  const auto first = scratch.write("first", "current-context: ctx\n");
  const auto second = scratch.write(
      "second", kubeconfig("    server: https://from-second:1\n", "    token: t2\n", "ignored"));
  const auto config = scheduling::informers::loadKubeconfig(
      first + ":" + (scratch.dir / "missing").string() + ":" + second);
  BOOST_TEST(config.host == "from-second");
  BOOST_TEST(config.bearerToken == "t2");
}

BOOST_AUTO_TEST_CASE(in_cluster_configuration_reads_the_service_account) {
  Scratch scratch;
  scratch.write("sa/token", "tok\n");
  scratch.write("sa/ca.crt", "CA");
  const auto dir = (scratch.dir / "sa").string();
  const std::map<std::string, std::string> env = {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                                                  {"KUBERNETES_SERVICE_PORT", "443"}};
  BOOST_TEST(scheduling::informers::runningInCluster(env));
  const auto config = scheduling::informers::inClusterConfig(env, dir);
  BOOST_TEST(config.host == "10.96.0.1");
  BOOST_TEST(config.port == "443");
  BOOST_TEST(config.https);
  BOOST_TEST(config.caPem == "CA");
  BOOST_TEST(config.tokenFile == dir + "/token");

  BOOST_CHECK_EXCEPTION(
      scheduling::informers::inClusterConfig({{"KUBERNETES_SERVICE_HOST", "h"}}, dir),
      std::runtime_error, [](const std::runtime_error& e) {
        return std::string(e.what()).find("KUBERNETES_SERVICE_PORT is not set") !=
               std::string::npos;
      });
  BOOST_CHECK_EXCEPTION(scheduling::informers::inClusterConfig(env, dir + "/nope"),
                        std::runtime_error, [](const std::runtime_error& e) {
                          return std::string(e.what()).find("service account token") !=
                                 std::string::npos;
                        });
  BOOST_TEST(!scheduling::informers::runningInCluster({}));
}

BOOST_AUTO_TEST_SUITE_END()
