{{/* codefrontier's names, labels and shared environment. Standard Helm only. */}}
{{- define "codefrontier.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 52 | trimSuffix "-" -}}
{{- end -}}

{{- define "codefrontier.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "codefrontier.selector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "codefrontier.redisHost" -}}
{{- printf "%s-redis" (include "codefrontier.fullname" .) -}}
{{- end -}}

{{- define "codefrontier.redisUrl" -}}
{{- if .Values.redis.enabled -}}
{{- printf "redis://%s:6379/0" (include "codefrontier.redisHost" .) -}}
{{- else -}}
{{- required "redis.externalUrl is required when redis.enabled is false" .Values.redis.externalUrl -}}
{{- end -}}
{{- end -}}

{{- define "codefrontier.tokenSecret" -}}
{{- if .Values.existingSecret -}}
{{- .Values.existingSecret -}}
{{- else -}}
{{- printf "%s-token" (include "codefrontier.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* the environment every codefrontier container gets */}}
{{- define "codefrontier.env" -}}
- name: FRONTIER_REDIS_URL
  value: {{ include "codefrontier.redisUrl" . | quote }}
- name: FRONTIER_JUDGE_URL
  value: {{ printf "http://%s-judge:%v" (include "codefrontier.fullname" .) .Values.judgeApi.port | quote }}
- name: FRONTIER_MERGER_URL
  value: {{ printf "http://%s-merger:%v" (include "codefrontier.fullname" .) .Values.merger.port | quote }}
{{- if or .Values.apiToken .Values.existingSecret }}
- name: FRONTIER_API_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "codefrontier.tokenSecret" . }}
      key: token
{{- end }}
{{- if or .Values.apiTokens .Values.existingSecret }}
- name: FRONTIER_API_TOKENS
  valueFrom:
    secretKeyRef:
      name: {{ include "codefrontier.tokenSecret" . }}
      key: tokens
      optional: true
{{- end }}
{{- if or .Values.operatorToken .Values.existingSecret }}
- name: FRONTIER_OPERATOR_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "codefrontier.tokenSecret" . }}
      key: operatorToken
      optional: true
{{- end }}
- name: FRONTIER_CLIENT_WEIGHTS
  value: {{ .Values.clientWeights | quote }}
- name: FRONTIER_MAX_CLIENT_QUEUE_DEPTH
  value: {{ .Values.maxClientQueueDepth | quote }}
- name: FRONTIER_MAX_CHECKS
  value: {{ .Values.maxChecks | quote }}
- name: FRONTIER_DEADLINE_MARGIN_S
  value: {{ .Values.deadlines.marginS | quote }}
- name: FRONTIER_SANDBOXFUSION_CLIENT_SLACK_S
  value: {{ .Values.deadlines.sandboxfusionClientSlackS | quote }}
- name: FRONTIER_DEADLINE_START_RULE
  value: {{ .Values.deadlines.startRule | quote }}
- name: FRONTIER_DEADLINE_CARRY_S
  value: {{ .Values.deadlines.carryS | quote }}
- name: FRONTIER_SANDBOXFUSION_CLIENT_ATTEMPTS
  value: {{ .Values.deadlines.sandboxfusionClientAttempts | quote }}
{{- range $name, $value := .Values.env }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end -}}
