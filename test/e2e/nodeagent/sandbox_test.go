package nodeagent

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestPlanMounts(t *testing.T) {
	root := t.TempDir()
	existing := filepath.Join(root, "etc")
	if err := os.MkdirAll(filepath.Join(existing, "present"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(existing, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	tests := []struct {
		name     string
		target   string
		overlay  string // the overlaid directory, "" for none
		resolved string // where the mount lands
	}{
		{"an existing directory is bound over", existing + "/present", "", existing + "/present"},
		{"a missing one is made in an overlay of its nearest ancestor", existing + "/kubernetes/scheduler", existing, existing + "/kubernetes/scheduler"},
		{"symbolic links on the way resolve", root + "/link/secrets/token", existing, existing + "/secrets/token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := planMounts([]mount{{source: "/src", target: tt.target}}, scratch, false)
			if err != nil {
				t.Fatal(err)
			}
			var overlaid []string
			for _, o := range plan.overlays {
				overlaid = append(overlaid, o.lower)
			}
			want := []string(nil)
			if tt.overlay != "" {
				want = []string{tt.overlay}
			}
			if !reflect.DeepEqual(overlaid, want) {
				t.Errorf("overlays %v, want %v", overlaid, want)
			}
			if got := plan.mounts[0].target; got != tt.resolved {
				t.Errorf("mounted at %s, want %s", got, tt.resolved)
			}
		})
	}
}

func TestPlanMountsOverlaysEachAncestorOnce(t *testing.T) {
	root := t.TempDir()
	plan, err := planMounts([]mount{
		{source: "/a", target: root + "/x/one"},
		{source: "/b", target: root + "/x/two", readOnly: true},
	}, t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.overlays) != 1 || plan.overlays[0].lower != root {
		t.Errorf("overlays %+v, want one of %s", plan.overlays, root)
	}
	script := plan.script()
	for _, want := range []string{
		"mount --bind '/b' '" + root + "/x/two'\nmount -o remount,bind,ro '" + root + "/x/two'",
		"mount -o remount,bind,ro /\nexec \"$@\"",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("the script lacks %q:\n%s", want, script)
		}
	}
}

func TestPlanMountsRefusesTheRoot(t *testing.T) {
	if _, err := planMounts([]mount{{source: "/a", target: "/no-such-directory-here/x"}}, t.TempDir(), false); err == nil {
		t.Error("a mount point right under / was planned; it would need an overlay of the root")
	}
}

func TestRunAs(t *testing.T) {
	id := func(v int64) *int64 { return &v }
	yes, no := true, false
	tests := []struct {
		name    string
		pod     corev1.PodSecurityContext
		c       *corev1.SecurityContext
		image   Image
		want    string
		refused bool
	}{
		{name: "the image's root, nothing set", want: ""},
		{name: "the image's user", image: Image{User: 65532},
			want: "/usr/bin/setpriv --reuid=65532 --regid=65532 --clear-groups --"},
		{name: "the pod's user, group and fsGroup",
			pod:  corev1.PodSecurityContext{RunAsUser: id(1000), RunAsGroup: id(2000), FSGroup: id(3000), SupplementalGroups: []int64{4000}},
			want: "/usr/bin/setpriv --reuid=1000 --regid=2000 --groups=3000,4000 --"},
		{name: "the container's over the pod's, no privilege escalation",
			pod:  corev1.PodSecurityContext{RunAsUser: id(1000)},
			c:    &corev1.SecurityContext{RunAsUser: id(1001), RunAsGroup: id(1001), AllowPrivilegeEscalation: &no},
			want: "/usr/bin/setpriv --reuid=1001 --regid=1001 --clear-groups --no-new-privs --"},
		{name: "runAsNonRoot refuses root", pod: corev1.PodSecurityContext{RunAsNonRoot: &yes}, refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			argv, err := runAs(&tt.pod, tt.c, tt.image)
			if (err != nil) != tt.refused {
				t.Fatalf("error %v, refused %t", err, tt.refused)
			}
			if got := strings.Join(argv, " "); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
