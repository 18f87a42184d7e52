package nodeagent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// volumeWriter writes a pod's volumes into directories on the host, as kubelet's volume
// plugins do, for the sandbox to bind-mount where the containers' volumeMounts say.
type volumeWriter struct {
	client  kubernetes.Interface
	pod     *corev1.Pod
	fsGroup *int64
}

// write materializes every volume of the pod under dir/<volume name>.
func (w *volumeWriter) write(ctx context.Context, dir string) error {
	for _, v := range w.pod.Spec.Volumes {
		path := filepath.Join(dir, v.Name)
		if err := os.MkdirAll(path, 0o755); err != nil {
			return err
		}
		if err := w.writeVolume(ctx, path, v); err != nil {
			return fmt.Errorf("volume %q: %w", v.Name, err)
		}
	}
	return nil
}

func (w *volumeWriter) writeVolume(ctx context.Context, dir string, v corev1.Volume) error {
	switch {
	case v.ConfigMap != nil:
		return w.writeConfigMap(ctx, dir, v.ConfigMap.Name, v.ConfigMap.Items, v.ConfigMap.DefaultMode, v.ConfigMap.Optional)
	case v.Secret != nil:
		return w.writeSecret(ctx, dir, v.Secret.SecretName, v.Secret.Items, v.Secret.DefaultMode, v.Secret.Optional)
	case v.Projected != nil:
		for _, source := range v.Projected.Sources {
			if err := w.writeProjection(ctx, dir, source, v.Projected.DefaultMode); err != nil {
				return err
			}
		}
		return nil
	case v.EmptyDir != nil:
		return w.own(dir, 0o777)
	}
	return fmt.Errorf("the node agent supports configMap, secret, projected and emptyDir volumes only")
}

func (w *volumeWriter) writeProjection(ctx context.Context, dir string, source corev1.VolumeProjection, defaultMode *int32) error {
	switch {
	case source.ConfigMap != nil:
		return w.writeConfigMap(ctx, dir, source.ConfigMap.Name, source.ConfigMap.Items, defaultMode, source.ConfigMap.Optional)
	case source.Secret != nil:
		return w.writeSecret(ctx, dir, source.Secret.Name, source.Secret.Items, defaultMode, source.Secret.Optional)
	case source.ServiceAccountToken != nil:
		return w.writeToken(ctx, dir, source.ServiceAccountToken, defaultMode)
	case source.DownwardAPI != nil:
		for _, item := range source.DownwardAPI.Items {
			value, err := fieldValue(w.pod, item.FieldRef)
			if err != nil {
				return err
			}
			if err := w.writeFile(dir, item.Path, []byte(value), modeOf(item.Mode, defaultMode)); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("the node agent projects configMap, secret, serviceAccountToken and downwardAPI sources only")
}

func (w *volumeWriter) writeConfigMap(ctx context.Context, dir, name string, items []corev1.KeyToPath, defaultMode *int32, optional *bool) error {
	cm, err := w.client.CoreV1().ConfigMaps(w.pod.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		if optional != nil && *optional {
			return nil
		}
		return fmt.Errorf("configMap %q: %w", name, err)
	}
	data := map[string][]byte{}
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	for k, v := range cm.BinaryData {
		data[k] = v
	}
	return w.writeKeys(dir, "configMap "+name, data, items, defaultMode)
}

func (w *volumeWriter) writeSecret(ctx context.Context, dir, name string, items []corev1.KeyToPath, defaultMode *int32, optional *bool) error {
	secret, err := w.client.CoreV1().Secrets(w.pod.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		if optional != nil && *optional {
			return nil
		}
		return fmt.Errorf("secret %q: %w", name, err)
	}
	return w.writeKeys(dir, "secret "+name, secret.Data, items, defaultMode)
}

// writeKeys writes every key, or only the listed items under their paths; a listed key the
// object lacks fails the pod, as kubelet fails to set up the volume.
func (w *volumeWriter) writeKeys(dir, what string, data map[string][]byte, items []corev1.KeyToPath, defaultMode *int32) error {
	if len(items) == 0 {
		for k, v := range data {
			if err := w.writeFile(dir, k, v, modeOf(nil, defaultMode)); err != nil {
				return err
			}
		}
		return nil
	}
	for _, item := range items {
		v, ok := data[item.Key]
		if !ok {
			return fmt.Errorf("%s has no key %q", what, item.Key)
		}
		if err := w.writeFile(dir, item.Path, v, modeOf(item.Mode, defaultMode)); err != nil {
			return err
		}
	}
	return nil
}

// writeToken asks the API server for a token bound to the pod (TokenRequest), as kubelet
// does for the projected service-account volume.
func (w *volumeWriter) writeToken(ctx context.Context, dir string, source *corev1.ServiceAccountTokenProjection, defaultMode *int32) error {
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		ExpirationSeconds: source.ExpirationSeconds,
		BoundObjectRef: &authenticationv1.BoundObjectReference{
			Kind: "Pod", APIVersion: "v1", Name: w.pod.Name, UID: w.pod.UID,
		},
	}}
	if source.Audience != "" {
		request.Spec.Audiences = []string{source.Audience}
	}
	account := w.pod.Spec.ServiceAccountName
	if account == "" {
		account = "default"
	}
	token, err := w.client.CoreV1().ServiceAccounts(w.pod.Namespace).CreateToken(ctx, account, request, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("token for service account %q: %w", account, err)
	}
	return w.writeFile(dir, source.Path, []byte(token.Status.Token), modeOf(nil, defaultMode))
}

func (w *volumeWriter) writeFile(dir, path string, data []byte, mode os.FileMode) error {
	full := filepath.Join(dir, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(full, data, 0o600); err != nil {
		return err
	}
	return w.own(full, mode)
}

// own gives a file the pod's fsGroup as its group, so that a container running as another
// user reads it through the group bits, as kubelet does for volumes that support ownership.
func (w *volumeWriter) own(path string, mode os.FileMode) error {
	if w.fsGroup != nil {
		if err := os.Chown(path, 0, int(*w.fsGroup)); err != nil {
			return err
		}
	}
	return os.Chmod(path, mode)
}

// modeOf is an item's mode, else the volume's defaultMode, else 0644 (the API's default).
func modeOf(item, defaultMode *int32) os.FileMode {
	switch {
	case item != nil:
		return os.FileMode(*item)
	case defaultMode != nil:
		return os.FileMode(*defaultMode)
	}
	return 0o644
}

// fieldValue answers the downward API's field references the node agent supports.
func fieldValue(pod *corev1.Pod, ref *corev1.ObjectFieldSelector) (string, error) {
	if ref == nil {
		return "", fmt.Errorf("the node agent supports downward API fieldRef items only")
	}
	switch ref.FieldPath {
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.name":
		return pod.Name, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.podIP":
		return pod.Status.PodIP, nil
	}
	return "", fmt.Errorf("the node agent does not support the field %q", ref.FieldPath)
}
