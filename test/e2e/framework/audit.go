package framework

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
)

// BindingAttempt is one `create pods/binding` that kube-apiserver's audit log recorded.
type BindingAttempt struct {
	Pod  string // namespace/name
	User string // who asked: kube-scheduler's or the extender's service account
	Code int    // the answer: 201 bound, 409 already bound or UID mismatch, ...
}

// Bindings reads every Binding creation from the cluster's audit log (local-cluster.sh
// records them, and nothing else, in logs/audit.log).
func (c *Cluster) Bindings() ([]BindingAttempt, error) {
	f, err := os.Open(filepath.Join(c.Dir, "logs", "audit.log"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []BindingAttempt
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		var event struct {
			Stage     string                    `json:"stage"`
			User      struct{ Username string } `json:"user"`
			ObjectRef struct {
				Resource, Subresource, Namespace, Name string
			} `json:"objectRef"`
			ResponseStatus struct{ Code int } `json:"responseStatus"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &event); err != nil {
			return nil, err
		}
		if event.Stage != "ResponseComplete" || event.ObjectRef.Resource != "pods" || event.ObjectRef.Subresource != "binding" {
			continue
		}
		out = append(out, BindingAttempt{
			Pod:  event.ObjectRef.Namespace + "/" + event.ObjectRef.Name,
			User: event.User.Username, Code: event.ResponseStatus.Code,
		})
	}
	return out, scanner.Err()
}
