{{/* Chart name, overridable with nameOverride. */}}
{{- define "paymesh.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Release-qualified name; prefix of every object this chart creates. */}}
{{- define "paymesh.fullname" -}}
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

{{- define "paymesh.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Name of one service's objects (Deployment, Service, PDB, Ingress). Args: dict root, name. */}}
{{- define "paymesh.componentName" -}}
{{- printf "%s-%s" (include "paymesh.fullname" .root) .name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Selector labels. Args: dict root, name ("" for objects shared by every service). */}}
{{- define "paymesh.selectorLabels" -}}
app.kubernetes.io/name: {{ include "paymesh.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- with .name }}
app.kubernetes.io/component: {{ . }}
{{- end }}
{{- end }}

{{/* Common labels. Args: dict root, name. */}}
{{- define "paymesh.labels" -}}
helm.sh/chart: {{ include "paymesh.chart" .root }}
{{ include "paymesh.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: paymesh
{{- end }}

{{/*
Image of one service: its own repository/tag, or the global ones (the repository with the
service's imageRepositorySuffix, e.g. paymesh-documents for the Dockerfile's documents target).
Args: dict root, svc.
*/}}
{{- define "paymesh.image" -}}
{{- $img := .svc.image | default (dict) }}
{{- $repo := $img.repository | default (printf "%s%s" .root.Values.image.repository (.svc.imageRepositorySuffix | default "")) }}
{{- $tag := $img.tag | default .root.Values.image.tag | default .root.Chart.AppVersion }}
{{- printf "%s:%s" $repo (toString $tag) }}
{{- end }}

{{- define "paymesh.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "paymesh.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Secret holding STORE_URL, SECRETS_KEYRING and SYSTEM_API_KEY. */}}
{{- define "paymesh.secretName" -}}
{{- default (include "paymesh.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{/* Env variable naming a backend's gRPC address: checkout -> CHECKOUT_GRPC_ADDR. */}}
{{- define "paymesh.grpcAddrEnv" -}}
{{- printf "%s_GRPC_ADDR" (. | upper | replace "-" "_") }}
{{- end }}

{{/* Secret with one service's gRPC TLS material (ca.crt, tls.crt, tls.key). Args: dict root, name. */}}
{{- define "paymesh.grpcTlsSecret" -}}
{{- $prefix := .root.Values.grpcTls.secretPrefix | default (printf "%s-grpc-tls" (include "paymesh.fullname" .root)) }}
{{- printf "%s-%s" $prefix .name | trunc 253 }}
{{- end }}

{{/*
Autoscaling settings of one service: the global `autoscaling` values, each field overridden by
the service's own `autoscaling` entry when it names that field (also `enabled: false`).
Args: dict root, svc. Returns YAML (read it with fromYaml).
*/}}
{{- define "paymesh.autoscaling" -}}
{{- $own := .svc.autoscaling | default dict -}}
{{- $out := dict -}}
{{- range $key, $value := .root.Values.autoscaling -}}
{{- $_ := set $out $key (ternary (get $own $key) $value (hasKey $own $key)) -}}
{{- end -}}
{{- toYaml $out -}}
{{- end }}
