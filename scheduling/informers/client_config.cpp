#include "scheduling/informers/client_config.hpp"

#include <openssl/evp.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace scheduling::informers {

namespace {

std::string readFile(const std::filesystem::path& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(what + ": cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string decodeBase64(const std::string& text, const std::string& what) {
  std::string compact;
  for (char c : text) {
    if (c != '\n' && c != '\r' && c != ' ') compact.push_back(c);
  }
  if (compact.size() % 4 != 0) throw std::runtime_error(what + ": not valid base64");
  std::string out(compact.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(compact.data()),
                                static_cast<int>(compact.size()));
  if (n < 0) throw std::runtime_error(what + ": not valid base64");
  // EVP_DecodeBlock counts the padding as decoded zero bytes.
  std::size_t size = static_cast<std::size_t>(n);
  for (auto it = compact.rbegin(); it != compact.rend() && *it == '='; ++it) --size;
  out.resize(size);
  return out;
}

// Splits a server URL into the config's host, port, scheme and base path.
void parseServer(const std::string& server, ClientConfig& config, const std::string& what) {
  std::string rest = server;
  if (rest.starts_with("https://")) {
    rest.erase(0, 8);
  } else if (rest.starts_with("http://")) {
    config.https = false;
    rest.erase(0, 7);
  } else {
    throw std::runtime_error(what + ": \"" + server + "\" is not an http:// or https:// URL");
  }
  const auto slash = rest.find('/');
  if (slash != std::string::npos) {
    config.basePath = rest.substr(slash);
    while (config.basePath.ends_with('/')) config.basePath.pop_back();
    rest.erase(slash);
  }
  std::string host = rest;
  std::string port;
  if (rest.starts_with('[')) {  // [IPv6]:port
    const auto close = rest.find(']');
    if (close == std::string::npos) throw std::runtime_error(what + ": bad IPv6 address");
    host = rest.substr(1, close - 1);
    if (close + 1 < rest.size() && rest[close + 1] == ':') port = rest.substr(close + 2);
  } else if (const auto colon = rest.rfind(':'); colon != std::string::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (host.empty()) throw std::runtime_error(what + ": no host in \"" + server + "\"");
  config.host = host;
  config.port = port.empty() ? (config.https ? "443" : "80") : port;
}

// The kubeconfig files, in merge order, each with its directory for relative references.
struct KubeconfigFile {
  std::filesystem::path path;
  YAML::Node root;
};

std::vector<KubeconfigFile> loadFiles(const std::string& paths) {
  std::vector<KubeconfigFile> files;
  std::stringstream list(paths);
  for (std::string path; std::getline(list, path, ':');) {
    if (path.empty()) continue;
    if (!std::filesystem::exists(path)) {
      // kubectl skips missing entries of a list, but a single named file must exist.
      if (paths.find(':') == std::string::npos) {
        throw std::runtime_error("kubeconfig " + path + ": no such file");
      }
      continue;
    }
    try {
      files.push_back({std::filesystem::absolute(path), YAML::LoadFile(path)});
    } catch (const YAML::Exception& e) {
      throw std::runtime_error("kubeconfig " + path + ": " + e.what());
    }
  }
  if (files.empty()) throw std::runtime_error("kubeconfig: none of \"" + paths + "\" exists");
  return files;
}

// The named entry of a list (clusters, contexts, users): its inner map and its file.
struct Entry {
  YAML::Node value;
  const KubeconfigFile* file = nullptr;
};

std::optional<Entry> findNamed(const std::vector<KubeconfigFile>& files, const char* list,
                               const char* inner, const std::string& name) {
  for (const auto& file : files) {
    const YAML::Node items = file.root[list];
    if (!items || !items.IsSequence()) continue;
    for (const auto& item : items) {
      if (item["name"] && item["name"].as<std::string>() == name) {
        return Entry{item[inner], &file};
      }
    }
  }
  return std::nullopt;
}

std::string scalar(const YAML::Node& map, const char* key) {
  const YAML::Node value = map[key];
  return value && value.IsScalar() ? value.as<std::string>() : std::string();
}

// A certificate or key given inline (`<key>-data`, base64) or as a file reference.
std::string pemFrom(const Entry& entry, const std::string& key, const std::string& where) {
  if (const auto data = scalar(entry.value, (key + "-data").c_str()); !data.empty()) {
    return decodeBase64(data, where + "." + key + "-data");
  }
  if (const auto file = scalar(entry.value, key.c_str()); !file.empty()) {
    return readFile(entry.file->path.parent_path() / file, where + "." + key);
  }
  return {};
}

}  // namespace

ClientConfig loadKubeconfig(const std::string& paths) {
  const auto files = loadFiles(paths);
  std::string contextName;
  for (const auto& file : files) {
    contextName = scalar(file.root, "current-context");
    if (!contextName.empty()) break;
  }
  const std::string source = "kubeconfig " + paths;
  if (contextName.empty()) throw std::runtime_error(source + ": current-context is not set");
  try {
    const auto context = findNamed(files, "contexts", "context", contextName);
    if (!context) {
      throw std::runtime_error("contexts: no context named \"" + contextName + "\"");
    }
    const std::string clusterName = scalar(context->value, "cluster");
    const std::string userName = scalar(context->value, "user");
    const auto cluster = findNamed(files, "clusters", "cluster", clusterName);
    if (!cluster) {
      throw std::runtime_error("clusters: no cluster named \"" + clusterName + "\" (context \"" +
                               contextName + "\")");
    }

    ClientConfig config;
    const std::string clusterPath = "clusters[" + clusterName + "].cluster";
    const std::string server = scalar(cluster->value, "server");
    if (server.empty()) throw std::runtime_error(clusterPath + ".server: not set");
    parseServer(server, config, clusterPath + ".server");
    config.caPem = pemFrom(*cluster, "certificate-authority", clusterPath);
    config.insecureSkipTlsVerify = scalar(cluster->value, "insecure-skip-tls-verify") == "true";
    config.tlsServerName = scalar(cluster->value, "tls-server-name");

    if (!userName.empty()) {
      const auto found = findNamed(files, "users", "user", userName);
      if (!found) {
        throw std::runtime_error("users: no user named \"" + userName + "\" (context \"" +
                                 contextName + "\")");
      }
      const Entry& user = *found;
      const std::string userPath = "users[" + userName + "].user";
      config.bearerToken = scalar(user.value, "token");
      if (const auto tokenFile = scalar(user.value, "tokenFile"); !tokenFile.empty()) {
        config.tokenFile = (user.file->path.parent_path() / tokenFile).string();
      }
      config.clientCertPem = pemFrom(user, "client-certificate", userPath);
      config.clientKeyPem = pemFrom(user, "client-key", userPath);
      if (config.clientCertPem.empty() != config.clientKeyPem.empty()) {
        throw std::runtime_error(userPath +
                                 ": client-certificate and client-key must be set together");
      }
      if (user.value["exec"] || user.value["auth-provider"]) {
        if (config.bearerToken.empty() && config.tokenFile.empty() &&
            config.clientCertPem.empty()) {
          throw std::runtime_error(userPath +
                                   ": exec and auth-provider plugins are not supported; use a "
                                   "token, tokenFile or client certificate");
        }
      }
    }
    config.origin = source + ", context " + contextName;
    return config;
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(source + ": " + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(source + ": " + e.what());
  }
}

bool runningInCluster(const std::map<std::string, std::string>& environment) {
  const auto host = environment.find("KUBERNETES_SERVICE_HOST");
  return host != environment.end() && !host->second.empty();
}

ClientConfig inClusterConfig(const std::map<std::string, std::string>& environment,
                             const std::string& serviceAccountDir) {
  const auto lookup = [&](const char* name) {
    const auto it = environment.find(name);
    if (it == environment.end() || it->second.empty()) {
      throw std::runtime_error(std::string("in-cluster configuration: ") + name + " is not set");
    }
    return it->second;
  };
  ClientConfig config;
  config.host = lookup("KUBERNETES_SERVICE_HOST");
  config.port = lookup("KUBERNETES_SERVICE_PORT");
  config.tokenFile = (std::filesystem::path(serviceAccountDir) / "token").string();
  // Fail now, not on the first request, when the service account is not mounted.
  readFile(config.tokenFile, "in-cluster configuration: service account token");
  config.caPem = readFile(std::filesystem::path(serviceAccountDir) / "ca.crt",
                          "in-cluster configuration: service account CA");
  config.origin = "in-cluster configuration (" + config.host + ":" + config.port + ")";
  return config;
}

}  // namespace scheduling::informers
