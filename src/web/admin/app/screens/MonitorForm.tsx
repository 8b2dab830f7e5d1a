/**
 * The form that creates or edits a monitor: the fields of its check type (an http request and
 * what its answer must hold, a dns lookup and its expected values), the quorum and the degraded
 * threshold, and the incident it opens on an outage (none, a draft or a published one, from which
 * template, resolved after how long up).
 */
import { useState } from "preact/hooks"

import { withIfMatch } from "../../../../client/IfMatch.js"
import type { Component } from "../../../../domain/Component.js"
import type { IncidentTemplate } from "../../../../domain/IncidentTemplate.js"
import {
  type IncidentPolicy,
  maskedHeaderValue,
  type Monitor,
  monitorLimits,
  type MonitorType,
  passwordTypes,
  type QuorumRule
} from "../../../../domain/Monitor.js"
import { monitorTypeLabel, optionsOf } from "../../../Labels.js"
import { assertionRows, AssertionsEditor, assertionsOf } from "../ui/AssertionsEditor.js"
import { SelectField, TextArea, TextField } from "../ui/fields.js"
import { PushUrl } from "../ui/PushUrl.js"
import { useSubmit } from "../ui/requests.js"
import { ResourceForm, type ResourceFormProps } from "../ui/resources.js"

const monitorTypes = optionsOf(monitorTypeLabel)

export type MonitorJson = typeof Monitor.json.Type
/** `T` with its possibly-undefined properties optional and never undefined: what leaving them out makes. */
type LeftOut<T,> =
  & { readonly [K in keyof T as undefined extends T[K] ? never : K]: T[K] }
  & { readonly [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined> }
export type ComponentJson = typeof Component.json.Type
export type TemplateJson = typeof IncidentTemplate.json.Type

const incidentPolicyLabel: Record<IncidentPolicy, string> = {
  off: "Off",
  draft: "Open a draft incident",
  publish: "Open and publish an incident"
}
const incidentPolicies = optionsOf(incidentPolicyLabel)

const targetField: Record<MonitorType, { readonly label: string; readonly hint: string }> = {
  http: { label: "URL", hint: "The http:// or https:// address to request." },
  tcp: { label: "Host and port", hint: "host:port or tcp://host:port, such as db.example.com:5432." },
  ssl_expiry: { label: "Host", hint: "https://host or https://host:port, without a path." },
  dns: { label: "Host name", hint: "The name to resolve, such as example.com (or dns://example.com)." },
  // No field: the service makes a push monitor's URL.
  push: { label: "", hint: "" },
  icmp: { label: "Host", hint: "A host name or an IP address to ping, such as db.example.com or 203.0.113.7." },
  grpc: { label: "Address", hint: "grpc://host:port (plaintext) or grpcs://host:port (TLS)." },
  postgres: { label: "Server", hint: "postgres://user@host:5432/database (user postgres when left out)." },
  mysql: { label: "Server", hint: "mysql://user@host:3306/database (user root when left out)." },
  redis: { label: "Server", hint: "redis://user@host:6379/0, or rediss:// for TLS." },
  mqtt: { label: "Broker", hint: "mqtt://user@host:1883, or mqtts:// for TLS (port 8883)." },
  amqp: { label: "Broker", hint: "amqp://user@host:5672/vhost, or amqps:// for TLS (guest when no user)." }
}

const methods = (["GET", "HEAD", "POST"] as const).map((value) => ({ value, label: value }))
const recordTypes = (["A", "AAAA", "CNAME", "MX", "TXT", "NS"] as const).map((value) => ({ value, label: value }))
type Method = typeof methods[number]["value"]
type RecordType = typeof recordTypes[number]["value"]

/** A comma- or space-separated list; empty: none. */
const listOf = (text: string) => text.split(/[\s,]+/).filter((item) => item.length > 0)

/** "majority", "any", "all", or a number; empty: the default. Anything else goes to the API to judge. */
const quorumOf = (text: string): QuorumRule => {
  const trimmed = text.trim()
  return trimmed === "" ? "majority" : /^\d+$/.test(trimmed) ? Number(trimmed) : trimmed as QuorumRule
}

/** One `Name: value` a line; a value left as the mask keeps the stored one. */
const headersOf = (text: string): Record<string, string> | null => {
  const lines = text.split("\n").map((line) => line.trim()).filter((line) => line.length > 0)
  if (lines.length === 0) return null
  return Object.fromEntries(lines.map((line) => {
    const colon = line.indexOf(":")
    return colon < 0 ? [line, ""] : [line.slice(0, colon).trim(), line.slice(colon + 1).trim()]
  }))
}
const headersText = (headers: MonitorJson["headers"] | undefined) =>
  headers ? Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join("\n") : ""

const optionalText = (text: string) => text.trim() === "" ? null : text

/** An optional whole number: empty means "the default"; anything else goes to the API to judge. */
const optionalNumber = (text: string): number | undefined => text.trim() === "" ? undefined : Number(text.trim())
const numberText = (value: number | null | undefined) => value === null || value === undefined ? "" : String(value)

export const MonitorForm = (
  props: ResourceFormProps<MonitorJson> & {
    readonly components: ReadonlyArray<ComponentJson>
    readonly templates: ReadonlyArray<TemplateJson>
  }
) => {
  const { initial } = props
  const [componentId, setComponentId] = useState<string>(initial?.componentId ?? props.components[0]?.id ?? "")
  const [type, setType] = useState<MonitorType>(initial?.type ?? "http")
  const [url, setUrl] = useState(initial?.type === "push" ? "" : initial?.url ?? "")
  const [interval, setIntervalText] = useState(numberText(initial?.intervalSeconds))
  const [timeout, setTimeoutText] = useState(numberText(initial?.timeoutMs))
  const [expectedStatus, setExpectedStatus] = useState(initial?.expectedStatusCodes?.join(", ") ?? "")
  const [threshold, setThreshold] = useState(numberText(initial?.failureThreshold))
  // A push monitor's region and quorum are fixed: a change of its type starts from the defaults.
  const pushed = initial?.type === "push"
  const [regions, setRegions] = useState(pushed ? "" : initial?.regions?.join(", ") ?? "")
  const [quorum, setQuorum] = useState(initial && !pushed ? String(initial.quorum) : "")
  const [degradedAbove, setDegradedAbove] = useState(numberText(initial?.degradedAboveMs))
  const [method, setMethod] = useState<Method>(initial?.method ?? "GET")
  const [headers, setHeaders] = useState(headersText(initial?.headers))
  const [body, setBody] = useState(initial?.body ?? "")
  const [bodyContains, setBodyContains] = useState(initial?.bodyContains ?? "")
  const [bodyNotContains, setBodyNotContains] = useState(initial?.bodyNotContains ?? "")
  const [assertions, setAssertions] = useState(() => assertionRows(initial?.assertions))
  const [recordType, setRecordType] = useState<RecordType>(initial?.dnsRecordType ?? "A")
  const [expectedValues, setExpectedValues] = useState(initial?.dnsExpectedValues?.join(", ") ?? "")
  const [incidentPolicy, setIncidentPolicy] = useState<IncidentPolicy>(initial?.incidentPolicy ?? "off")
  const [incidentTemplateId, setIncidentTemplateId] = useState(initial?.incidentTemplateId ?? "")
  const [resolveAfter, setResolveAfter] = useState(numberText(initial?.resolveAfterSeconds))
  const [grace, setGrace] = useState(numberText(initial?.graceSeconds))
  const [password, setPassword] = useState(initial?.password ?? "")
  const [grpcService, setGrpcService] = useState(initial?.grpcService ?? "")
  const [pingCount, setPingCount] = useState(numberText(initial?.pingCount))
  /** A saved push monitor whose token the answer showed: the form shows its URL until Done. */
  const [made, setMade] = useState<MonitorJson | null>(null)
  const { failure, busy, submit, fieldError } = useSubmit()
  const field = (name: string) => `${props.id}-${name}`

  const save = async () => {
    const regionList = listOf(regions)
    const codes = listOf(expectedStatus)
    const values = listOf(expectedValues)
    const http = type === "http"
    const push = type === "push"
    const payload = {
      componentId: componentId as ComponentJson["id"],
      type,
      // A push monitor takes no target, time-out, regions or quorum: its one region is push.
      url: push ? undefined : url.trim(),
      intervalSeconds: optionalNumber(interval),
      timeoutMs: push ? undefined : optionalNumber(timeout),
      failureThreshold: optionalNumber(threshold),
      regions: push ? undefined : regionList.length === 0 ? null : regionList,
      quorum: push ? undefined : quorumOf(quorum),
      graceSeconds: push ? optionalNumber(grace) : undefined,
      degradedAboveMs: optionalNumber(degradedAbove) ?? null,
      // The fields of the other types are left out: the API resets them when the type changes.
      method: http ? method : undefined,
      headers: http ? headersOf(headers) : undefined,
      body: http ? (method === "POST" ? optionalText(body) : null) : undefined,
      expectedStatusCodes: http && codes.length > 0 ? codes : undefined,
      bodyContains: http ? optionalText(bodyContains) : undefined,
      bodyNotContains: http ? optionalText(bodyNotContains) : undefined,
      assertions: http ? (method === "HEAD" ? null : assertionsOf(assertions)) : undefined,
      dnsRecordType: type === "dns" ? recordType : undefined,
      dnsExpectedValues: type === "dns" ? (values.length === 0 ? null : values) : undefined,
      // The stored password shows as the mask: sent back as it is, it keeps it; emptied, it clears it.
      password: passwordTypes.includes(type) ? optionalText(password) : undefined,
      grpcService: type === "grpc" ? optionalText(grpcService) : undefined,
      pingCount: type === "icmp" ? optionalNumber(pingCount) : undefined,
      incidentPolicy,
      incidentTemplateId: incidentTemplateId === "" ? null : incidentTemplateId as TemplateJson["id"],
      resolveAfterSeconds: optionalNumber(resolveAfter)
    }
    // Left-out fields keep their defaults (create) or stored values (update).
    const defined = Object.fromEntries(Object.entries(payload).filter(([, value]) => value !== undefined)) as LeftOut<
      typeof payload
    >
    const outcome = await submit((api) =>
      initial
        ? api.monitors.update({ params: { id: initial.id }, payload: defined }).pipe(withIfMatch(props.etag))
        : api.monitors.create({ payload: defined })
    )
    if (!outcome.ok) return
    if (outcome.value.pushToken === undefined) props.onSaved(outcome.value)
    else setMade(outcome.value)
  }

  if (made !== null && made.pushToken !== undefined) {
    return (
      <div class="push-made">
        <PushUrl id={field("push-url")} token={made.pushToken} />
        <button
          type="button"
          class="primary"
          onClick={() => {
            setMade(null)
            props.onSaved(made)
          }}
        >
          Done
        </button>
      </div>
    )
  }

  return (
    <ResourceForm {...props} failure={failure} busy={busy} onSubmit={save}>
      <SelectField
        id={field("component")}
        label="Component"
        value={componentId}
        options={props.components.map((component) => ({ value: component.id as string, label: component.name }))}
        onChange={setComponentId}
        error={fieldError("componentId")}
      />
      <SelectField
        id={field("type")}
        label="Check"
        value={type}
        options={monitorTypes}
        onChange={setType}
        error={fieldError("type")}
      />
      {type !== "push" && (
        <TextField
          id={field("url")}
          label={targetField[type].label}
          hint={targetField[type].hint}
          required
          value={url}
          onInput={setUrl}
          error={fieldError("url")}
        />
      )}
      <TextField
        id={field("interval")}
        label="Interval (seconds)"
        inputMode="numeric"
        value={interval}
        onInput={setIntervalText}
        hint={`${monitorLimits.intervalSeconds.min} to ${monitorLimits.intervalSeconds.max}; ${monitorLimits.intervalSeconds.default} when empty.`}
        error={fieldError("intervalSeconds")}
      />
      {type === "push"
        ? (
          <TextField
            id={field("grace")}
            label="Grace (seconds)"
            inputMode="numeric"
            value={grace}
            onInput={setGrace}
            hint={`How late a push may come before its run fails, ${monitorLimits.graceSeconds.min} to the interval; ${monitorLimits.graceSeconds.default} (or the interval when shorter) when empty.`}
            error={fieldError("graceSeconds")}
          />
        )
        : (
          <TextField
            id={field("timeout")}
            label="Time-out (milliseconds)"
            inputMode="numeric"
            value={timeout}
            onInput={setTimeoutText}
            hint={`${monitorLimits.timeoutMs.min} to ${monitorLimits.timeoutMs.max}, shorter than the interval.`}
            error={fieldError("timeoutMs")}
          />
        )}
      {type === "http" && (
        <>
          <SelectField
            id={field("method")}
            label="Method"
            value={method}
            options={methods}
            onChange={setMethod}
            error={fieldError("method")}
          />
          <TextArea
            id={field("headers")}
            label="Request headers"
            value={headers}
            onInput={setHeaders}
            hint={`One "Name: value" a line, at most ${monitorLimits.headers.max}. Stored values show as ${maskedHeaderValue}; leave them so to keep them.`}
            error={fieldError("headers")}
          />
          {method === "POST" && (
            <TextArea
              id={field("body")}
              label="Request body"
              value={body}
              onInput={setBody}
              hint="Sent with the POST; empty for none."
              error={fieldError("body")}
            />
          )}
          <TextField
            id={field("expected-status")}
            label="Expected status codes"
            value={expectedStatus}
            onInput={setExpectedStatus}
            hint={`Codes and ranges, comma-separated, such as 200-299, 304; ${monitorLimits.expectedStatusCode.default} when empty.`}
            error={fieldError("expectedStatusCodes") ?? fieldError("expectedStatusCode")}
          />
          {method !== "HEAD" && (
            <>
              <TextField
                id={field("body-contains")}
                label="Body contains"
                value={bodyContains}
                onInput={setBodyContains}
                hint="Text the first 1 MB of the answer must contain; empty for no check."
                error={fieldError("bodyContains")}
              />
              <TextField
                id={field("body-not-contains")}
                label="Body does not contain"
                value={bodyNotContains}
                onInput={setBodyNotContains}
                hint="Text the first 1 MB of the answer must not contain; empty for no check."
                error={fieldError("bodyNotContains")}
              />
              <AssertionsEditor
                id={field("assertions")}
                rows={assertions}
                onChange={setAssertions}
                error={fieldError("assertions")}
              />
            </>
          )}
        </>
      )}
      {type === "dns" && (
        <>
          <SelectField
            id={field("record-type")}
            label="Record type"
            value={recordType}
            options={recordTypes}
            onChange={setRecordType}
            error={fieldError("dnsRecordType")}
          />
          <TextField
            id={field("expected-values")}
            label="Expected values"
            value={expectedValues}
            onInput={setExpectedValues}
            hint="Comma-separated values that must all be among the answers, such as 203.0.113.7; empty for any answer."
            error={fieldError("dnsExpectedValues")}
          />
        </>
      )}
      {passwordTypes.includes(type) && (
        <TextField
          id={field("password")}
          label="Password"
          type="password"
          autoComplete="new-password"
          value={password}
          onInput={setPassword}
          hint={`Sent to log in, never shown again: a stored one shows as ${maskedHeaderValue}; leave it so to keep it, empty it to remove it. The user goes in the address.`}
          error={fieldError("password")}
        />
      )}
      {type === "grpc" && (
        <TextField
          id={field("grpc-service")}
          label="Service"
          value={grpcService}
          onInput={setGrpcService}
          hint="The service whose health is asked, such as shop.Cart; empty for the server's overall health."
          error={fieldError("grpcService")}
        />
      )}
      {type === "icmp" && (
        <TextField
          id={field("ping-count")}
          label="Pings per check"
          inputMode="numeric"
          value={pingCount}
          onInput={setPingCount}
          hint={`${monitorLimits.pingCount.min} to ${monitorLimits.pingCount.max}; ${monitorLimits.pingCount.default} when empty. The check fails when none is answered.`}
          error={fieldError("pingCount")}
        />
      )}
      <TextField
        id={field("threshold")}
        label="Failures before down"
        inputMode="numeric"
        value={threshold}
        onInput={setThreshold}
        hint={`Consecutive failed checks, ${monitorLimits.failureThreshold.min} to ${monitorLimits.failureThreshold.max}; ${
          type === "push" ? 1 : monitorLimits.failureThreshold.default
        } when empty.`}
        error={fieldError("failureThreshold")}
      />
      {type !== "push" && (
        <>
          <TextField
            id={field("regions")}
            label="Regions"
            value={regions}
            onInput={setRegions}
            hint="Comma-separated, such as eu-west, us-east; empty for every region with a probe."
            error={fieldError("regions")}
          />
          <TextField
            id={field("quorum")}
            label="Quorum"
            value={quorum}
            onInput={setQuorum}
            hint="How many failing regions make it down: majority, any, all, or a number of regions; majority when empty."
            error={fieldError("quorum")}
          />
        </>
      )}
      <TextField
        id={field("degraded-above")}
        label="Degraded above (milliseconds)"
        inputMode="numeric"
        value={degradedAbove}
        onInput={setDegradedAbove}
        hint={`A success slower than this counts as degraded, ${monitorLimits.degradedAboveMs.min} to ${monitorLimits.degradedAboveMs.max}; empty for never.`}
        error={fieldError("degradedAboveMs")}
      />
      <SelectField
        id={field("incident-policy")}
        label="Incident on outage"
        hint="When the quorum finds it down: open an incident on its component, as a draft to publish or at once."
        value={incidentPolicy}
        options={incidentPolicies}
        onChange={setIncidentPolicy}
        error={fieldError("incidentPolicy")}
      />
      <SelectField
        id={field("incident-template")}
        label="Incident template"
        hint="Gives that incident its title, message and severity; None for the default ones."
        value={incidentTemplateId}
        options={[
          { value: "", label: "None" },
          ...props.templates.map((template) => ({ value: template.id as string, label: template.name })),
          // A template the list no longer holds still shows, so saving keeps it rather than clearing it.
          ...(incidentTemplateId !== "" && !props.templates.some((template) => template.id === incidentTemplateId)
            ? [{ value: incidentTemplateId, label: "A template not listed" }]
            : [])
        ]}
        onChange={setIncidentTemplateId}
        error={fieldError("incidentTemplateId")}
      />
      <TextField
        id={field("resolve-after")}
        label="Resolve after (seconds)"
        inputMode="numeric"
        value={resolveAfter}
        onInput={setResolveAfter}
        hint={`How long it stays up before that incident is resolved, ${monitorLimits.resolveAfterSeconds.min} to ${monitorLimits.resolveAfterSeconds.max}; ${monitorLimits.resolveAfterSeconds.default} when empty.`}
        error={fieldError("resolveAfterSeconds")}
      />
    </ResourceForm>
  )
}
