{{/*
Names. Every object is named from the release, so two releases never collide; a suffixed
name cuts the base, never the suffix, so truncation cannot make two objects one.
*/}}
{{- define "scheduler-extender.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "scheduler-extender.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* "<fullname>-<suffix>" within 63 characters. Call with (list $ "suffix"). */}}
{{- define "scheduler-extender.suffixed" -}}
{{- $top := index . 0 }}
{{- $suffix := index . 1 }}
{{- $base := include "scheduler-extender.fullname" $top | trunc (int (sub 62 (len $suffix))) | trimSuffix "-" }}
{{- printf "%s-%s" $base $suffix }}
{{- end }}

{{- define "scheduler-extender.extenderName" -}}
{{- include "scheduler-extender.suffixed" (list . "extender") }}
{{- end }}

{{- define "scheduler-extender.schedulerName" -}}
{{- default (include "scheduler-extender.fullname" .) .Values.schedulerName }}
{{- end }}

{{/* The extender's own ServiceAccount in service mode; in sidecar mode it shares the pod's. */}}
{{- define "scheduler-extender.schedulerServiceAccount" -}}
{{- include "scheduler-extender.fullname" . }}
{{- end }}

{{- define "scheduler-extender.extenderServiceAccount" -}}
{{- if eq .Values.mode "service" }}
{{- include "scheduler-extender.extenderName" . }}
{{- else }}
{{- include "scheduler-extender.schedulerServiceAccount" . }}
{{- end }}
{{- end }}

{{/* Labels. */}}
{{- define "scheduler-extender.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "scheduler-extender.labels" -}}
helm.sh/chart: {{ include "scheduler-extender.chart" . }}
app.kubernetes.io/name: {{ include "scheduler-extender.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector labels of one component ("scheduler" or "extender"). Call with (list $ "component"). */}}
{{- define "scheduler-extender.selectorLabels" -}}
{{- $top := index . 0 -}}
app.kubernetes.io/name: {{ include "scheduler-extender.name" $top }}
app.kubernetes.io/instance: {{ $top.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{- define "scheduler-extender.componentLabels" -}}
{{- $top := index . 0 -}}
{{ include "scheduler-extender.labels" $top }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{/* How kube-scheduler reaches the extender. */}}
{{- define "scheduler-extender.scheme" -}}
{{- if .Values.tls.enabled }}https{{ else }}http{{ end }}
{{- end }}

{{- define "scheduler-extender.serviceHost" -}}
{{- printf "%s.%s.svc" (include "scheduler-extender.extenderName" .) .Release.Namespace }}
{{- end }}

{{- define "scheduler-extender.urlPrefix" -}}
{{- if eq .Values.mode "service" }}
{{- printf "%s://%s:%d" (include "scheduler-extender.scheme" .) (include "scheduler-extender.serviceHost" .) (int .Values.service.port) }}
{{- else }}
{{- printf "%s://127.0.0.1:%d" (include "scheduler-extender.scheme" .) (int .Values.extender.port) }}
{{- end }}
{{- end }}

{{/*
The name verified in the extender's certificate: the Service's DNS name in both modes, so
one certificate serves kube-scheduler (even when it dials 127.0.0.1) and Prometheus.
*/}}
{{- define "scheduler-extender.serverName" -}}
{{- default (include "scheduler-extender.serviceHost" .) .Values.tls.serverName }}
{{- end }}

{{/*
The two configuration files, rendered once here so that the ConfigMaps and the pods'
checksum annotations hash exactly the same text.
*/}}
{{- define "scheduler-extender.frameworkConfig" -}}
# The extender's framework configuration (scheduler-extender --config).
{{ toYaml .Values.framework }}
{{- end }}

{{- define "scheduler-extender.schedulerConfig" -}}
{{- $tlsDir := "/etc/kubernetes/extender-tls" -}}
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: {{ .Values.leaderElection.enabled }}
  {{- if .Values.leaderElection.enabled }}
  resourceLock: leases
  resourceName: {{ include "scheduler-extender.schedulerName" . }}
  resourceNamespace: {{ .Release.Namespace }}
  leaseDuration: {{ .Values.leaderElection.leaseDuration }}
  renewDeadline: {{ .Values.leaderElection.renewDeadline }}
  retryPeriod: {{ .Values.leaderElection.retryPeriod }}
  {{- end }}
percentageOfNodesToScore: {{ include "scheduler-extender.kubeSchedulerSampling" . }}
profiles:
  - schedulerName: {{ include "scheduler-extender.schedulerName" . }}
    {{- if .Values.registration.exclusiveInterPodAffinity }}
    # The extender alone decides inter-pod affinity. Disabled under multiPoint, the plugin
    # leaves every extension point it implements (PreFilter, Filter, PreScore, Score, and the
    # PreFilter extensions preemption uses).
    plugins:
      multiPoint:
        disabled:
          - name: InterPodAffinity
    {{- end }}
extenders:
  - urlPrefix: {{ include "scheduler-extender.urlPrefix" . }}
    filterVerb: {{ .Values.registration.filterVerb | quote }}
    prioritizeVerb: {{ .Values.registration.prioritizeVerb | quote }}
    preemptVerb: {{ .Values.registration.preemptVerb | quote }}
    {{- with .Values.registration.bindVerb }}
    bindVerb: {{ . | quote }}
    {{- end }}
    weight: {{ include "scheduler-extender.weight" . }}
    nodeCacheCapable: {{ .Values.registration.nodeCacheCapable }}
    httpTimeout: {{ .Values.registration.httpTimeout }}
    ignorable: {{ .Values.registration.ignorable }}
    enableHTTPS: {{ .Values.tls.enabled }}
    {{- if .Values.tls.enabled }}
    tlsConfig:
      caFile: {{ $tlsDir }}/ca/ca.crt
      serverName: {{ include "scheduler-extender.serverName" . }}
      {{- if .Values.tls.clientAuth.enabled }}
      certFile: {{ $tlsDir }}/client/tls.crt
      keyFile: {{ $tlsDir }}/client/tls.key
      {{- end }}
    {{- end }}
{{- end }}

{{/*
kube-scheduler's percentageOfNodesToScore; see values.yaml's kubeScheduler.percentageOfNodesToScore.
*/}}
{{- define "scheduler-extender.kubeSchedulerSampling" -}}
{{- if not (kindIs "invalid" .Values.kubeScheduler.percentageOfNodesToScore) }}
{{- int .Values.kubeScheduler.percentageOfNodesToScore }}
{{- else if .Values.registration.exclusiveInterPodAffinity }}100
{{- else }}0
{{- end }}
{{- end }}

{{/*
The extender's weight in kube-scheduler's scoring; see values.yaml's registration.weight.
*/}}
{{- define "scheduler-extender.weight" -}}
{{- if not (kindIs "invalid" .Values.registration.weight) }}
{{- int .Values.registration.weight }}
{{- else if .Values.registration.exclusiveInterPodAffinity }}3
{{- else }}1
{{- end }}
{{- end }}

{{/*
Combinations of values, checked here rather than in the schema so that each message names
the values to change and says why.
*/}}
{{- define "scheduler-extender.validate" -}}
{{- if not (has .Values.mode (list "sidecar" "service")) }}
{{- fail (printf "mode must be \"sidecar\" or \"service\", not %q" .Values.mode) }}
{{- end }}
{{- if and (gt (int .Values.replicas) 1) (not .Values.leaderElection.enabled) }}
{{- fail (printf "replicas is %d but leaderElection.enabled is false: every kube-scheduler replica would schedule the same pods. Set leaderElection.enabled=true or replicas=1." (int .Values.replicas)) }}
{{- end }}
{{- if eq (int .Values.extender.port) (int .Values.extender.metricsPort) }}
{{- fail (printf "extender.port and extender.metricsPort are both %d: the scheduling verbs and the probes and /metrics listen apart, so that the probes' port can be open while the verbs' is not. Choose two ports." (int .Values.extender.port)) }}
{{- end }}
{{- if eq .Values.mode "sidecar" }}
{{- if eq (int .Values.extender.port) 10259 }}
{{- fail "extender.port 10259 is kube-scheduler's secure port, which shares the pod in sidecar mode: choose another port" }}
{{- end }}
{{- if eq (int .Values.extender.metricsPort) 10259 }}
{{- fail "extender.metricsPort 10259 is kube-scheduler's secure port, which shares the pod in sidecar mode: choose another port" }}
{{- end }}
{{- end }}
{{- if .Values.tls.enabled }}
{{- if not .Values.tls.serverSecretName }}
{{- fail "tls.enabled is true but tls.serverSecretName is empty: name the kubernetes.io/tls Secret holding the extender's certificate" }}
{{- end }}
{{- end }}
{{- if .Values.registration.exclusiveInterPodAffinity }}
{{- if not .Values.registration.bindVerb }}
{{- fail "registration.exclusiveInterPodAffinity needs registration.bindVerb=bind: without it kube-scheduler binds each pod itself and the extender, learning of the placement only from its watch, would answer the next pods on a cluster missing the last placements. Set registration.bindVerb=bind or registration.exclusiveInterPodAffinity=false." }}
{{- end }}
{{- $filters := false }}
{{- range .Values.framework.plugins.filter }}
{{- if eq .name "InterPodAffinity" }}{{ $filters = true }}{{ end }}
{{- end }}
{{- if not .Values.registration.filterVerb }}
{{- fail "registration.exclusiveInterPodAffinity needs registration.filterVerb: with kube-scheduler's InterPodAffinity off, the extender's /filter is all that enforces required affinity and anti-affinity" }}
{{- end }}
{{- if not $filters }}
{{- fail "registration.exclusiveInterPodAffinity needs InterPodAffinity in framework.plugins.filter: with kube-scheduler's InterPodAffinity off, it is all that enforces required affinity and anti-affinity" }}
{{- end }}
{{- if and (eq .Values.mode "service") (gt (int .Values.extender.replicas) 1) }}
{{- fail (printf "registration.exclusiveInterPodAffinity with mode=service needs extender.replicas=1, not %d: assumed pods and held requests live in one extender process, and the Service may send a pod's /bind to one replica and the next pod's /filter to another. Set extender.replicas=1, mode=sidecar, or registration.exclusiveInterPodAffinity=false." (int .Values.extender.replicas)) }}
{{- end }}
{{- end }}
{{- if .Values.tls.clientAuth.enabled }}
{{- if not .Values.tls.enabled }}
{{- fail "tls.clientAuth.enabled needs tls.enabled: mutual TLS runs over HTTPS" }}
{{- end }}
{{- if not .Values.tls.clientAuth.clientSecretName }}
{{- fail "tls.clientAuth.enabled is true but tls.clientAuth.clientSecretName is empty: name the kubernetes.io/tls Secret holding kube-scheduler's client certificate" }}
{{- end }}
{{- else if .Values.tls.clientAuth.clientName }}
{{- fail "tls.clientAuth.clientName is set but tls.clientAuth.enabled is false: the name is checked in client certificates, which only mutual TLS asks for. Set tls.clientAuth.enabled=true (with tls.clientAuth.clientSecretName) or leave tls.clientAuth.clientName empty." }}
{{- end }}
{{- if and .Values.registration.bindVerb (eq .Values.mode "service") (not .Values.tls.clientAuth.enabled) }}
{{- fail "registration.bindVerb=bind with mode=service needs tls.clientAuth.enabled=true: the extender's Service is reachable over the pod network, and /bind creates Bindings with the extender's pods/binding rights, so only kube-scheduler's client certificate may prove who calls it. Set tls.enabled=true, tls.serverSecretName, tls.clientAuth.enabled=true and tls.clientAuth.clientSecretName (and name the certificate in tls.clientAuth.clientName); or use mode=sidecar, where kube-scheduler calls the extender on 127.0.0.1; or leave registration.bindVerb empty." }}
{{- end }}
{{- end }}

{{/* Images. */}}
{{- define "scheduler-extender.extenderImage" -}}
{{- printf "%s:%s" .Values.extender.image.repository (default .Chart.AppVersion .Values.extender.image.tag) }}
{{- end }}

{{- define "scheduler-extender.schedulerImage" -}}
{{- printf "%s:%s" .Values.kubeScheduler.image.repository .Values.kubeScheduler.image.tag }}
{{- end }}

{{/*
Security contexts: both binaries run as an unprivileged numeric user (the extender image's
65532; kube-scheduler's image defaults to root, which it does not need), read nothing but
mounted files, and write nothing.
*/}}
{{- define "scheduler-extender.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{- define "scheduler-extender.containerSecurityContext" -}}
runAsNonRoot: true
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/*
The address of the scheduling verbs. In sidecar mode kube-scheduler, in the same pod, is their
only caller: loopback keeps every other pod away from /bind and /explain whatever the network
allows (kubectl port-forward still reaches it). In service mode the Service must reach them.
*/}}
{{- define "scheduler-extender.listenHost" -}}
{{- eq .Values.mode "service" | ternary "0.0.0.0" "127.0.0.1" }}
{{- end }}

{{/*
The extender container, the same in the sidecar and in its own Deployment. Two listeners: the
scheduling verbs on extender.port, /healthz, /readyz and /metrics on extender.metricsPort (all
addresses, since kubelet probes the pod IP and Prometheus scrapes it; no client certificate
asked for there, since neither presents one).
*/}}
{{- define "scheduler-extender.extenderContainer" -}}
{{- $scheme := .Values.tls.enabled | ternary "HTTPS" "HTTP" -}}
- name: extender
  image: {{ include "scheduler-extender.extenderImage" . }}
  imagePullPolicy: {{ .Values.extender.image.pullPolicy }}
  args:
    - --listen={{ include "scheduler-extender.listenHost" . }}:{{ int .Values.extender.port }}
    - --metrics-listen=0.0.0.0:{{ int .Values.extender.metricsPort }}
    - --scheduler-names={{ include "scheduler-extender.schedulerName" . }}
    - --config=/etc/scheduler-extender/config/config.yaml
    - --v={{ int .Values.extender.verbosity }}
    - --log-format={{ .Values.extender.logFormat }}
    - --shutdown-grace={{ int .Values.extender.shutdownGraceSeconds }}s
    {{- if .Values.extender.maxBodyBytes }}
    - --max-body-bytes={{ int64 .Values.extender.maxBodyBytes }}
    {{- end }}
    {{- if .Values.extender.maxConnections }}
    - --max-connections={{ int .Values.extender.maxConnections }}
    {{- end }}
    - --in-flight-wait={{ .Values.extender.inFlightWait }}
    {{- if .Values.tls.enabled }}
    - --tls-cert-file=/etc/scheduler-extender/tls/tls.crt
    - --tls-private-key-file=/etc/scheduler-extender/tls/tls.key
    {{- end }}
    {{- if .Values.tls.clientAuth.enabled }}
    - --client-ca-file=/etc/scheduler-extender/client-ca/ca.crt
    {{- with .Values.tls.clientAuth.clientName }}
    - --allowed-client-names={{ . }}
    {{- end }}
    {{- end }}
  ports:
    {{- if eq .Values.mode "service" }}
    # In sidecar mode the scheduling port is on loopback: not a port of the pod's network.
    - name: extender
      containerPort: {{ int .Values.extender.port }}
      protocol: TCP
    {{- end }}
    - name: metrics
      containerPort: {{ int .Values.extender.metricsPort }}
      protocol: TCP
  startupProbe:
    httpGet: {path: /readyz, port: metrics, scheme: {{ $scheme }}}
    periodSeconds: {{ int .Values.extender.startupProbe.periodSeconds }}
    failureThreshold: {{ int .Values.extender.startupProbe.failureThreshold }}
  readinessProbe:
    httpGet: {path: /readyz, port: metrics, scheme: {{ $scheme }}}
    periodSeconds: 5
    failureThreshold: 2
  livenessProbe:
    httpGet: {path: /healthz, port: metrics, scheme: {{ $scheme }}}
    periodSeconds: 10
    timeoutSeconds: 5
    failureThreshold: 3
  resources:
    {{- toYaml .Values.extender.resources | nindent 4 }}
  securityContext:
    {{- include "scheduler-extender.containerSecurityContext" . | nindent 4 }}
  volumeMounts:
    - name: extender-config
      mountPath: /etc/scheduler-extender/config
      readOnly: true
    {{- if .Values.tls.enabled }}
    - name: extender-tls
      mountPath: /etc/scheduler-extender/tls
      readOnly: true
    {{- end }}
    {{- if .Values.tls.clientAuth.enabled }}
    - name: extender-client-ca
      mountPath: /etc/scheduler-extender/client-ca
      readOnly: true
    {{- end }}
{{- end }}

{{- define "scheduler-extender.extenderVolumes" -}}
- name: extender-config
  configMap:
    name: {{ include "scheduler-extender.suffixed" (list . "extender-config") }}
{{- if .Values.tls.enabled }}
- name: extender-tls
  secret:
    secretName: {{ .Values.tls.serverSecretName }}
    defaultMode: 0440
    items:
      - {key: tls.crt, path: tls.crt}
      - {key: tls.key, path: tls.key}
{{- end }}
{{- if .Values.tls.clientAuth.enabled }}
- name: extender-client-ca
  secret:
    secretName: {{ default .Values.tls.clientAuth.clientSecretName .Values.tls.clientAuth.clientCASecretName }}
    defaultMode: 0440
    items:
      - {key: ca.crt, path: ca.crt}
{{- end }}
{{- end }}

{{/* Pod settings shared by both Deployments. */}}
{{- define "scheduler-extender.podPlacement" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* Spread replicas over nodes when there are several. Call with (list $ "component" replicas). */}}
{{- define "scheduler-extender.spread" -}}
{{- if gt (int (index . 2)) 1 }}
affinity:
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- include "scheduler-extender.selectorLabels" (list (index . 0) (index . 1)) | nindent 14 }}
{{- end }}
{{- end }}

{{/*
The label matchers that pick this release's extenders out of everything Prometheus scrapes:
prometheusRule.selector, or the labels the ServiceMonitor's targets get (the Prometheus
Operator sets job to the Service's name and namespace to the Service's namespace).
*/}}
{{- define "scheduler-extender.ruleSelector" -}}
{{- default (printf "job=%q,namespace=%q" (include "scheduler-extender.extenderName" .) .Release.Namespace) .Values.prometheusRule.selector }}
{{- end }}

{{/*
A Go duration as the schema allows it (a sum of <integer><unit>, units ms, s, m, h), in
seconds: for queries that compare with a duration value, such as registration.httpTimeout.
*/}}
{{- define "scheduler-extender.seconds" -}}
{{- $ms := 0 }}
{{- range regexFindAll "[0-9]+(ms|h|m|s)" . -1 }}
{{- $n := regexFind "^[0-9]+" . | int }}
{{- $unit := regexFind "[a-z]+$" . }}
{{- $ms = add $ms (mul $n (get (dict "ms" 1 "s" 1000 "m" 60000 "h" 3600000) $unit)) }}
{{- end }}
{{- divf $ms 1000 }}
{{- end }}
