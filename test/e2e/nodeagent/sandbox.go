package nodeagent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A container runs as a host process, started through
//
//	ip netns exec <pod's namespace> unshare --mount --propagation private -- sh -c <mounts> <argv>
//
// so that it has the pod's network and a mount namespace of its own, in which the pod's
// volumes sit where its volumeMounts say (/etc/kubernetes/..., /var/run/secrets/...), its
// /etc/hosts names the Services, and the root file system is read-only when its security
// context asks. Mount points that do not exist on the host are made inside an overlay of
// their nearest existing ancestor, private to the container, so the host is left untouched.
// The shell then execs setpriv (the container's user and groups) and the binary, so the pid
// the agent started is the container's.

// mount binds a host path (a volume's directory or a file) at a path inside the container.
type mount struct {
	source, target string
	readOnly       bool
}

// mountPlan is what the shell does before the binary starts.
type mountPlan struct {
	overlays []overlay
	mounts   []mount
	readOnly bool // remount / read-only (readOnlyRootFilesystem)
}

type overlay struct{ lower, upper, work string }

// planMounts resolves each mount's target on the host: an existing path is bound over
// directly; a missing one is created inside an overlay of its nearest existing ancestor.
// scratch is a directory of the pod's where overlays keep their upper and work directories.
func planMounts(mounts []mount, scratch string, readOnlyRoot bool) (mountPlan, error) {
	plan := mountPlan{readOnly: readOnlyRoot}
	overlaid := map[string]bool{}
	for _, m := range mounts {
		ancestor, rest, err := nearestExisting(m.target)
		if err != nil {
			return mountPlan{}, err
		}
		if rest != "" {
			if ancestor == "/" {
				return mountPlan{}, fmt.Errorf("mount path %s: the node agent cannot make a directory at the root", m.target)
			}
			if !overlaid[ancestor] {
				overlaid[ancestor] = true
				dir := filepath.Join(scratch, strconv.Itoa(len(plan.overlays)))
				o := overlay{lower: ancestor, upper: dir + "/upper", work: dir + "/work"}
				for _, d := range []string{o.upper, o.work} {
					if err := os.MkdirAll(d, 0o755); err != nil {
						return mountPlan{}, err
					}
				}
				plan.overlays = append(plan.overlays, o)
			}
		}
		plan.mounts = append(plan.mounts, mount{source: m.source, target: filepath.Join(ancestor, rest), readOnly: m.readOnly})
	}
	return plan, nil
}

// nearestExisting splits path into its nearest existing ancestor, with symbolic links
// resolved (/var/run is /run), and the part below it that does not exist yet.
func nearestExisting(path string) (string, string, error) {
	path = filepath.Clean(path)
	if !filepath.IsAbs(path) {
		return "", "", fmt.Errorf("mount path %q is not absolute", path)
	}
	rest := ""
	for dir := path; ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(dir); err == nil {
			real, err := filepath.EvalSymlinks(dir)
			return real, rest, err
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", "", err
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// script is the shell program that sets up the mounts and execs its arguments.
func (p mountPlan) script() string {
	var b strings.Builder
	b.WriteString("set -e\n")
	for _, o := range p.overlays {
		options := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", o.lower, o.upper, o.work)
		fmt.Fprintf(&b, "mount -t overlay overlay -o %s %s\n", quote(options), quote(o.lower))
	}
	for _, m := range p.mounts {
		if info, err := os.Stat(m.source); err == nil && !info.IsDir() {
			fmt.Fprintf(&b, "[ -e %[1]s ] || { mkdir -p %[2]s; : > %[1]s; }\n", quote(m.target), quote(filepath.Dir(m.target)))
		} else {
			fmt.Fprintf(&b, "mkdir -p %s\n", quote(m.target))
		}
		fmt.Fprintf(&b, "mount --bind %s %s\n", quote(m.source), quote(m.target))
		if m.readOnly {
			fmt.Fprintf(&b, "mount -o remount,bind,ro %s\n", quote(m.target))
		}
	}
	if p.readOnly {
		b.WriteString("mount -o remount,bind,ro /\n")
	}
	b.WriteString(`exec "$@"` + "\n")
	return b.String()
}

// quote makes s one word for sh.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
