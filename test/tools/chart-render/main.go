// chart-render renders a Helm chart's templates the way `helm template` does, for
// machines where the helm binary cannot be installed. It uses the same engine
// pieces as Helm: Go's text/template, the Sprig function library, and
// sigs.k8s.io/yaml for toYaml/fromYaml, plus Helm's own additions (include, tpl,
// required, lookup, toYaml, fromYaml, toJson, fromJson), .Files (Get and GetBytes only) and
// value merging (values.yaml, then each --values file, then each --set in order).
//
// Usage: chart-render CHART_DIR [--values FILE]... [--set a.b=c]... [--release NAME] [--namespace NS]
// Output: every rendered manifest, each preceded by "---" and "# Source: <chart>/templates/<file>".
// Exit 1 with a message on any template, YAML or `required` error.
//
// Vendored from the team's shared tools (tools/chart-render beside the project; the code is
// unchanged, this paragraph is new) so that a clean clone can render manifests/scheduler-extender
// in its tests. It does not read values.schema.json: test/manifests checks the schema itself.
// Built by test/CMakeLists.txt (target chart-render) from Debian's packages, without module
// downloads:
//   apt-get install golang-go golang-github-masterminds-sprig-dev golang-k8s-sigs-yaml-dev
//   GO111MODULE=off GOPATH=/usr/share/gocode go build -o chart-render main.go
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"sigs.k8s.io/yaml"
)

type values = map[string]interface{}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "chart-render: "+format+"\n", args...)
	os.Exit(1)
}

func readYAML(path string) values {
	data, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	out := values{}
	if err := yaml.Unmarshal(data, &out); err != nil {
		fail("%s: %v", path, err)
	}
	return out
}

// merge overlays src onto dst recursively, as Helm coalesces values files.
func merge(dst, src values) values {
	for k, v := range src {
		if sm, ok := v.(map[string]interface{}); ok {
			if dm, ok := dst[k].(map[string]interface{}); ok {
				dst[k] = merge(dm, sm)
				continue
			}
		}
		if v == nil {
			delete(dst, k)
			continue
		}
		dst[k] = v
	}
	return dst
}

// parseSet applies one --set a.b.c=value (no list indexes; value typed as Helm does for plain scalars).
func parseSet(dst values, expr string) {
	eq := strings.IndexByte(expr, '=')
	if eq < 0 {
		fail("--set %q: want key=value", expr)
	}
	keys := strings.Split(expr[:eq], ".")
	raw := expr[eq+1:]
	var val interface{} = raw
	switch {
	case raw == "true" || raw == "false":
		val = raw == "true"
	case raw == "null":
		val = nil
	default:
		if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
			val = n
		}
	}
	cur := dst
	for _, k := range keys[:len(keys)-1] {
		next, ok := cur[k].(map[string]interface{})
		if !ok {
			next = values{}
			cur[k] = next
		}
		cur = next
	}
	cur[keys[len(keys)-1]] = val
}

// chartFiles is Helm's .Files: the chart's files other than its templates, charts and
// the files Helm reads itself, keyed by their slash-separated path in the chart. Only Get and
// GetBytes, which the chart uses; .helmignore is not applied (Helm leaves ignored files out).
type chartFiles map[string][]byte

func loadFiles(chartDir string) chartFiles {
	files := chartFiles{}
	skip := map[string]bool{"Chart.yaml": true, "Chart.lock": true, "values.yaml": true,
		"values.schema.json": true, "requirements.yaml": true, "requirements.lock": true}
	err := filepath.Walk(chartDir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(chartDir, path)
		rel = filepath.ToSlash(rel)
		if info.IsDir() {
			if rel == "templates" || rel == "charts" || rel == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if skip[rel] {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[rel] = data
		return nil
	})
	if err != nil {
		fail("%v", err)
	}
	return files
}

// Get is a file's content, "" when the chart has no such file (as in Helm).
func (f chartFiles) Get(name string) string { return string(f[name]) }

func (f chartFiles) GetBytes(name string) []byte { return f[name] }

func toYAML(v interface{}) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func main() {
	if len(os.Args) < 2 || strings.HasPrefix(os.Args[1], "-") {
		fail("usage: chart-render CHART_DIR [--values FILE]... [--set a.b=c]... [--release NAME] [--namespace NS]")
	}
	chartDir := os.Args[1]
	release, namespace := "release-name", "default"
	var valueFiles, sets []string
	for i := 2; i < len(os.Args); i++ {
		arg := os.Args[i]
		if i+1 >= len(os.Args) {
			fail("%s needs a value", arg)
		}
		i++
		switch arg {
		case "--values", "-f":
			valueFiles = append(valueFiles, os.Args[i])
		case "--set":
			sets = append(sets, os.Args[i])
		case "--release":
			release = os.Args[i]
		case "--namespace", "-n":
			namespace = os.Args[i]
		default:
			fail("unknown flag %s", arg)
		}
	}

	chart := readYAML(filepath.Join(chartDir, "Chart.yaml"))
	for _, k := range []string{"apiVersion", "name", "version"} {
		if _, ok := chart[k]; !ok {
			fail("Chart.yaml: missing %s", k)
		}
	}
	vals := values{}
	if _, err := os.Stat(filepath.Join(chartDir, "values.yaml")); err == nil {
		vals = readYAML(filepath.Join(chartDir, "values.yaml"))
	}
	for _, f := range valueFiles {
		vals = merge(vals, readYAML(f))
	}
	for _, s := range sets {
		parseSet(vals, s)
	}

	chartName := fmt.Sprint(chart["name"])
	top := map[string]interface{}{
		"Values":  vals,
		"Release": map[string]interface{}{"Name": release, "Namespace": namespace, "Service": "Helm", "IsInstall": true, "IsUpgrade": false, "Revision": 1},
		"Chart": map[string]interface{}{"Name": chartName, "Version": chart["version"], "AppVersion": chart["appVersion"],
			"Description": chart["description"], "ApiVersion": chart["apiVersion"]},
		"Files": loadFiles(chartDir),
		"Capabilities": map[string]interface{}{"KubeVersion": map[string]interface{}{"Version": "v1.31.0", "Major": "1", "Minor": "31", "GitVersion": "v1.31.0"},
			"APIVersions": []string{"v1", "apps/v1", "rbac.authorization.k8s.io/v1", "policy/v1", "monitoring.coreos.com/v1"}},
	}

	tmpl := template.New("chart").Option("missingkey=zero")
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	funcs["toYaml"] = toYAML
	funcs["fromYaml"] = func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := yaml.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	funcs["toJson"] = func(v interface{}) string { b, _ := json.Marshal(v); return string(b) }
	funcs["fromJson"] = func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	funcs["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil || v == "" {
			return v, fmt.Errorf("%s", msg)
		}
		return v, nil
	}
	funcs["lookup"] = func(string, string, string, string) map[string]interface{} { return map[string]interface{}{} }
	funcs["include"] = func(name string, data interface{}) (string, error) {
		var buf bytes.Buffer
		err := tmpl.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		t, err := tmpl.Clone()
		if err != nil {
			return "", err
		}
		t, err = t.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = t.Execute(&buf, data)
		return buf.String(), err
	}
	tmpl.Funcs(funcs)

	var files []string
	root := filepath.Join(chartDir, "templates")
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml") || strings.HasSuffix(path, ".tpl") || strings.HasSuffix(path, ".txt")) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		fail("%v", err)
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			fail("%v", err)
		}
		rel, _ := filepath.Rel(chartDir, f)
		if _, err := tmpl.New(filepath.ToSlash(filepath.Join(chartName, rel))).Parse(string(data)); err != nil {
			fail("%v", err)
		}
	}
	for _, f := range files {
		base := filepath.Base(f)
		if strings.HasPrefix(base, "_") || strings.HasSuffix(base, ".txt") {
			continue
		}
		rel, _ := filepath.Rel(chartDir, f)
		name := filepath.ToSlash(filepath.Join(chartName, rel))
		top["Template"] = map[string]interface{}{"Name": name, "BasePath": chartName + "/templates"}
		var buf bytes.Buffer
		if err := tmpl.ExecuteTemplate(&buf, name, top); err != nil {
			fail("%v", err)
		}
		out := strings.ReplaceAll(buf.String(), "<no value>", "")
		for _, doc := range strings.Split(out, "\n---") {
			if strings.TrimSpace(strings.TrimPrefix(doc, "---")) == "" {
				continue
			}
			fmt.Printf("---\n# Source: %s\n%s\n", name, strings.TrimSpace(strings.TrimPrefix(doc, "---")))
			var probe interface{}
			if err := yaml.Unmarshal([]byte(doc), &probe); err != nil {
				fail("%s: rendered YAML does not parse: %v", name, err)
			}
		}
	}
}
