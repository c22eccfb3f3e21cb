// helm-render renders a Helm 3 chart the way `helm template` does, for tests on machines without
// the helm binary: Go's text/template with the sprig function library (the same engine and
// functions Helm uses) plus Helm's own functions (include, tpl, required, toYaml, fromYaml, toJson,
// lookup). Values are read the way Helm reads them (YAML -> JSON, so every number is a float64) and
// override files are merged over values.yaml in order.
//
// Usage: helm-render -chart DIR [-name RELEASE] [-namespace NS] [-f override.yaml ...]
// Prints a JSON array of {"template": "<chart>/templates/<file>", "content": "<rendered text>"}.
//
// Not covered: subcharts, .Files, .Capabilities beyond a fixed KubeVersion, schema validation.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	yamlv2 "gopkg.in/yaml.v2"
	yaml "gopkg.in/yaml.v3"
)

type fileList []string

func (f *fileList) String() string     { return strings.Join(*f, ",") }
func (f *fileList) Set(v string) error { *f = append(*f, v); return nil }

type rendered struct {
	Template string `json:"template"`
	Content  string `json:"content"`
}

func main() {
	chartDir := flag.String("chart", "", "chart directory")
	name := flag.String("name", "paymesh", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	var overrides fileList
	flag.Var(&overrides, "f", "values override file (repeatable)")
	flag.Parse()
	if *chartDir == "" {
		fail("-chart is required")
	}
	out, err := render(*chartDir, *name, *namespace, overrides)
	if err != nil {
		fail(err.Error())
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "helm-render:", msg)
	os.Exit(1)
}

// readYAML parses a YAML file into JSON-shaped data (maps with string keys, float64 numbers).
func readYAML(path string) (map[string]interface{}, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseYAML(string(raw))
}

func parseYAML(text string) (map[string]interface{}, error) {
	var v interface{}
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		return nil, err
	}
	if v == nil {
		return map[string]interface{}{}, nil
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := map[string]interface{}{}
	if err := json.Unmarshal(j, &out); err != nil {
		return nil, fmt.Errorf("top level must be a map: %w", err)
	}
	return out, nil
}

// merge deep-merges src over dst the way Helm coalesces override files (maps merge, the rest
// replaces; an explicit null deletes the key).
func merge(dst, src map[string]interface{}) map[string]interface{} {
	for k, v := range src {
		if v == nil {
			delete(dst, k)
			continue
		}
		sm, sok := v.(map[string]interface{})
		dm, dok := dst[k].(map[string]interface{})
		if sok && dok {
			dst[k] = merge(dm, sm)
		} else {
			dst[k] = v
		}
	}
	return dst
}

func toYAML(v interface{}) string {
	data, err := yamlv2.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func render(chartDir, name, namespace string, overrides []string) ([]rendered, error) {
	chart, err := readYAML(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return nil, fmt.Errorf("Chart.yaml: %w", err)
	}
	values, err := readYAML(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		return nil, fmt.Errorf("values.yaml: %w", err)
	}
	for _, f := range overrides {
		o, err := readYAML(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		values = merge(values, o)
	}
	chartName, _ := chart["name"].(string)
	chartObj := map[string]interface{}{}
	for k, v := range chart {
		chartObj[strings.ToUpper(k[:1])+k[1:]] = v
	}
	top := map[string]interface{}{
		"Values": values,
		"Chart":  chartObj,
		"Release": map[string]interface{}{
			"Name": name, "Namespace": namespace, "Service": "Helm",
			"IsInstall": true, "IsUpgrade": false, "Revision": 1,
		},
		"Capabilities": map[string]interface{}{
			"KubeVersion": map[string]interface{}{"Version": "v1.30.0", "Major": "1", "Minor": "30", "GitVersion": "v1.30.0"},
		},
		"Template": map[string]interface{}{"BasePath": chartName + "/templates"},
	}

	root := template.New("root").Option("missingkey=zero")
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	includedNames := map[string]int{}
	funcs["include"] = func(n string, data interface{}) (string, error) {
		if includedNames[n] > 100 {
			return "", fmt.Errorf("include %q: recursion too deep", n)
		}
		includedNames[n]++
		defer func() { includedNames[n]-- }()
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, n, data); err != nil {
			return "", err
		}
		return buf.String(), nil
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		t, err := root.Clone()
		if err != nil {
			return "", err
		}
		t, err = t.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		if err := t.Execute(&buf, data); err != nil {
			return "", err
		}
		return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
	}
	funcs["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil {
			return nil, fmt.Errorf("%s", msg)
		}
		if s, ok := v.(string); ok && s == "" {
			return nil, fmt.Errorf("%s", msg)
		}
		return v, nil
	}
	funcs["toYaml"] = toYAML
	funcs["fromYaml"] = func(s string) map[string]interface{} {
		m, err := parseYAML(s)
		if err != nil {
			return map[string]interface{}{"Error": err.Error()}
		}
		return m
	}
	funcs["lookup"] = func(...interface{}) map[string]interface{} { return map[string]interface{}{} }
	root.Funcs(funcs)

	dir := filepath.Join(chartDir, "templates")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		full := chartName + "/templates/" + e.Name()
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if _, err := root.New(full).Parse(string(raw)); err != nil {
			return nil, err
		}
		if !strings.HasPrefix(e.Name(), "_") {
			names = append(names, full)
		}
	}
	sort.Strings(names)
	var out []rendered
	for _, n := range names {
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, n, top); err != nil {
			return nil, err
		}
		out = append(out, rendered{Template: n, Content: strings.ReplaceAll(buf.String(), "<no value>", "")})
	}
	return out, nil
}
