// grafana-schema holds Grafana dashboard JSON files to the dashboard schema
// Grafana publishes in its Apache-2.0 foundation SDK (types generated from
// Grafana's own CUE): the strict decoder, then Validate().
//
//	grafana-schema FILE...
//
// Prints one line per error, "FILE: JSON.PATH: what", and exits 1 on any
// error, 0 when there is none (2 on bad usage or an unreadable file).
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// exportEnvelope are the keys Grafana's "Export for sharing externally"
// wraps around a dashboard, which its import consumes and never stores in
// the dashboard model the schema describes:
//   - __inputs: the data sources (and constants) the import asks the user
//     to pick; the import replaces each ${DS_...} with the choice.
//   - __requires: the Grafana version, data source and panel plugins the
//     import checks are installed.
//   - __elements: the library panels the export carries along, which the
//     import creates apart from the dashboard (proctree's have none, but
//     it is envelope all the same).
//
// Anything else is held to the schema.
var exportEnvelope = []string{"__inputs", "__requires", "__elements"}

// The strict decoders name the Go type, not the key, in the path of an
// unexpected key ("panels[1].options.Options: unexpected field 'foo'").
var unexpected = regexp.MustCompile(`^unexpected field '(.*)'$`)

type problem struct{ path, message string }

func problems(err error) []problem {
	if err == nil {
		return nil
	}
	var errs cog.BuildErrors
	if errors.As(err, &errs) {
		// The decoders return a typed nil slice when all is well: no error.
		out := make([]problem, 0, len(errs))
		for _, e := range errs {
			path, msg := e.Path, e.Message
			if m := unexpected.FindStringSubmatch(msg); m != nil {
				if i := strings.LastIndexByte(path, '.'); i >= 0 {
					path = path[:i+1] + m[1]
				} else {
					path = m[1]
				}
				msg = "unexpected field"
			}
			out = append(out, problem{path, msg})
		}
		return out
	}
	var one *cog.BuildError
	if errors.As(err, &one) {
		return []problem{{one.Path, one.Message}}
	}
	return []problem{{"", err.Error()}}
}

// unchecked names the panels whose options the strict decoder would take as
// any JSON at all: a type the SDK has no schema for (a panel plugin of its
// own, or one the SDK left out) has nothing to hold its options to, which
// would pass unseen. Rows hold panels of their own (a collapsed row's).
func unchecked(raw json.RawMessage, path string) []problem {
	var panels []struct {
		Type   *string         `json:"type"`
		Panels json.RawMessage `json:"panels"`
	}
	if json.Unmarshal(raw, &panels) != nil {
		return nil // not a list of objects: the decoder says so
	}
	var out []problem
	for i, p := range panels {
		at := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case p.Type == nil:
			// the decoder says so
		case *p.Type == "row":
			out = append(out, unchecked(p.Panels, at+".panels")...)
		default:
			if _, found := cog.ConfigForPanelcfgVariant(*p.Type); !found {
				out = append(out, problem{at + ".type",
					fmt.Sprintf("no schema for panel type %q in the SDK: its options cannot be checked", *p.Type)})
			}
		}
	}
	return out
}

// The union's Validate() names the member it holds: not a JSON key.
var unionStep = regexp.MustCompile(`^(panels\[[0-9]+\])\.(Panel|RowPanel)\b`)

// keepPanels puts each panel back into d. In v0.0.22 the strict decoder of
// a dashboard's panels (PanelOrRowPanel) drops every panel it decodes
// without error (its member decoder returns an empty error list that is not
// nil, and it returns that instead of keeping the panel), so Validate()
// would never see a panel: a panel 25 columns wide would pass. The decoding
// errors are reported already; here each panel is decoded again only for
// Validate() to see it.
func keepPanels(d *dashboard.Dashboard, raw json.RawMessage) {
	var panels []json.RawMessage
	if json.Unmarshal(raw, &panels) != nil || len(panels) != len(d.Panels) {
		return
	}
	for i, one := range panels {
		var kind struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(one, &kind) != nil {
			continue
		}
		if kind.Type == "row" {
			row := &dashboard.RowPanel{}
			_ = row.UnmarshalJSONStrict(one)
			d.Panels[i] = dashboard.PanelOrRowPanel{RowPanel: row}
		} else {
			panel := &dashboard.Panel{}
			_ = panel.UnmarshalJSONStrict(one)
			d.Panels[i] = dashboard.PanelOrRowPanel{Panel: panel}
		}
	}
}

// check returns the file's errors against the schema.
func check(raw []byte) ([]problem, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	for _, key := range exportEnvelope {
		delete(doc, key)
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var d dashboard.Dashboard
	found := append(unchecked(doc["panels"], "panels"), problems(d.UnmarshalJSONStrict(body))...)
	seen := map[problem]bool{}
	for _, p := range found {
		seen[p] = true
	}
	keepPanels(&d, doc["panels"])
	// Validate() checks the constraints (ranges, lengths) on what was
	// decoded; after a decoding error it may say the same thing twice.
	for _, p := range problems(d.Validate()) {
		p.path = unionStep.ReplaceAllString(p.path, "$1")
		if !seen[p] {
			seen[p] = true
			found = append(found, p)
		}
	}
	return found, nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: grafana-schema DASHBOARD.json...")
		os.Exit(2)
	}
	// Without the panel plugins registered, the strict decoder takes a
	// panel's options and fieldConfig.defaults.custom as any JSON at all:
	// with them, a timeseries panel's are decoded as timeseries.Options and
	// timeseries.FieldConfig, strictly.
	plugins.RegisterDefaultPlugins()
	status := 0
	for _, name := range os.Args[1:] {
		raw, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "grafana-schema: %v\n", err)
			os.Exit(2)
		}
		found, err := check(raw)
		if err != nil {
			fmt.Printf("%s: %v\n", name, err)
			status = 1
			continue
		}
		for _, p := range found {
			path := p.path
			if path == "" {
				path = "(document)"
			}
			// a key or message from the file is printed as Go quotes it
			// when it holds anything but printable ASCII
			fmt.Printf("%s: %s: %s\n", name, quote(path), quote(p.message))
			status = 1
		}
	}
	os.Exit(status)
}

func quote(s string) string {
	for _, r := range s {
		if r < 0x20 || r > 0x7e {
			return fmt.Sprintf("%q", s)
		}
	}
	return s
}
