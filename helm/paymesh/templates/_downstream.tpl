{{/*
The backends each backend service calls over gRPC: the same lists as the `downstream` export of
services/<name>/src/config.ts, which is where each service's gRPC client addresses come from
(test/deploy/helm.test.ts fails when the two differ in either direction). The gateways call every
backend. The NetworkPolicies admit exactly these callers at each backend's gRPC port and let each
pod reach exactly these backends. Part of the chart, not of values: it changes with the code.
*/}}
{{- define "paymesh.downstream" -}}
billing: [tax, checkout, notifications-ipn, documents]
checkout: [payments-webhooks, tax]
documents: []
notifications-ipn: [checkout]
payments-webhooks: []
recurring: [billing]
tax: []
{{- end }}
