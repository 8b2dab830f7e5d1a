/**
 * Monitors: creating and editing checks with the fields of their type, and deleting them.
 * Live state per region and recent results join this screen with the result ingest.
 */
import { useState } from "preact/hooks"

import type { Component } from "../../../../domain/Component.js"
import { type Monitor, monitorLimits, type MonitorType } from "../../../../domain/Monitor.js"
import { monitorTypeLabel, optionsOf } from "../../../Labels.js"
import { call } from "../api.js"
import type { Failure } from "../failure.js"
import { ConfirmButton, FailureMessage, Loading, StatusMessage, Table } from "../ui/feedback.js"
import { SelectField, TextField } from "../ui/fields.js"
import { useListScreen, useLoad, useSubmit } from "../ui/requests.js"
import type { Screen } from "./Screen.js"

const monitorTypes = optionsOf(monitorTypeLabel)

type MonitorJson = typeof Monitor.json.Type
type ComponentJson = typeof Component.json.Type

const targetField: Record<MonitorType, { readonly label: string; readonly hint: string }> = {
  http: { label: "URL", hint: "The http:// or https:// address to request." },
  tcp: { label: "Host and port", hint: "host:port or tcp://host:port, such as db.example.com:5432." },
  ssl_expiry: { label: "Host", hint: "https://host or https://host:port, without a path." }
}

/** An optional whole number: empty means "the default"; anything else goes to the API to judge. */
const optionalNumber = (text: string): number | undefined => text.trim() === "" ? undefined : Number(text.trim())
const numberText = (value: number | null | undefined) => value === null || value === undefined ? "" : String(value)

const MonitorForm = (props: {
  readonly id: string
  readonly components: ReadonlyArray<ComponentJson>
  readonly initial?: MonitorJson
  readonly submitLabel: string
  readonly onSaved: (monitor: MonitorJson) => void
  readonly onCancel?: () => void
}) => {
  const { initial } = props
  const [componentId, setComponentId] = useState<string>(initial?.componentId ?? props.components[0]?.id ?? "")
  const [type, setType] = useState<MonitorType>(initial?.type ?? "http")
  const [url, setUrl] = useState(initial?.url ?? "")
  const [interval, setIntervalText] = useState(numberText(initial?.intervalSeconds))
  const [timeout, setTimeoutText] = useState(numberText(initial?.timeoutMs))
  const [expectedStatus, setExpectedStatus] = useState(numberText(initial?.expectedStatusCode))
  const [threshold, setThreshold] = useState(numberText(initial?.failureThreshold))
  const [regions, setRegions] = useState(initial?.regions?.join(", ") ?? "")
  const { failure, busy, submit, fieldError } = useSubmit()
  const field = (name: string) => `${props.id}-${name}`

  const onSubmit = async (event: Event) => {
    event.preventDefault()
    const regionList = regions.split(/[\s,]+/).filter((region) => region.length > 0)
    const payload = {
      componentId: componentId as ComponentJson["id"],
      type,
      url: url.trim(),
      intervalSeconds: optionalNumber(interval),
      timeoutMs: optionalNumber(timeout),
      expectedStatusCode: type === "http" ? optionalNumber(expectedStatus) : undefined,
      failureThreshold: optionalNumber(threshold),
      regions: regionList.length === 0 ? null : regionList
    }
    // Left-out fields keep their defaults (create) or stored values (update).
    const defined = Object.fromEntries(Object.entries(payload).filter(([, value]) => value !== undefined)) as
      & typeof payload
      & { url: string }
    const outcome = await submit((api) =>
      initial
        ? api.monitors.update({ path: { id: initial.id }, payload: defined })
        : api.monitors.create({ payload: defined })
    )
    if (outcome.ok) props.onSaved(outcome.value)
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-labelledby={`${props.id}-title`}>
      <FailureMessage failure={failure} />
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
      <TextField
        id={field("url")}
        label={targetField[type].label}
        hint={targetField[type].hint}
        required
        value={url}
        onInput={setUrl}
        error={fieldError("url")}
      />
      <TextField
        id={field("interval")}
        label="Interval (seconds)"
        inputMode="numeric"
        value={interval}
        onInput={setIntervalText}
        hint={`${monitorLimits.intervalSeconds.min} to ${monitorLimits.intervalSeconds.max}; ${monitorLimits.intervalSeconds.default} when empty.`}
        error={fieldError("intervalSeconds")}
      />
      <TextField
        id={field("timeout")}
        label="Time-out (milliseconds)"
        inputMode="numeric"
        value={timeout}
        onInput={setTimeoutText}
        hint={`${monitorLimits.timeoutMs.min} to ${monitorLimits.timeoutMs.max}, shorter than the interval.`}
        error={fieldError("timeoutMs")}
      />
      {type === "http" && (
        <TextField
          id={field("expected-status")}
          label="Expected status code"
          inputMode="numeric"
          value={expectedStatus}
          onInput={setExpectedStatus}
          hint={`${monitorLimits.expectedStatusCode.default} when empty.`}
          error={fieldError("expectedStatusCode")}
        />
      )}
      <TextField
        id={field("threshold")}
        label="Failures before down"
        inputMode="numeric"
        value={threshold}
        onInput={setThreshold}
        hint={`Consecutive failed checks, ${monitorLimits.failureThreshold.min} to ${monitorLimits.failureThreshold.max}; ${monitorLimits.failureThreshold.default} when empty.`}
        error={fieldError("failureThreshold")}
      />
      <TextField
        id={field("regions")}
        label="Regions"
        value={regions}
        onInput={setRegions}
        hint="Comma-separated, such as eu-west, us-east; empty for every region with a probe."
        error={fieldError("regions")}
      />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>{props.submitLabel}</button>
        {props.onCancel && <button type="button" onClick={props.onCancel}>Cancel</button>}
      </div>
    </form>
  )
}

const MonitorRow = (props: {
  readonly monitor: MonitorJson
  readonly components: ReadonlyArray<ComponentJson>
  readonly onChanged: (message: string) => void
}) => {
  const { monitor } = props
  const [editing, setEditing] = useState(false)
  const [failure, setFailure] = useState<Failure | null>(null)
  const componentName = props.components.find((component) => component.id === monitor.componentId)?.name ??
    "unknown component"
  const remove = async () => {
    const outcome = await call((api) => api.monitors.remove({ path: { id: monitor.id } }))
    setFailure(outcome.ok ? null : outcome.failure)
    if (outcome.ok) props.onChanged(`The monitor of ${monitor.url} was deleted.`)
  }

  return (
    <tr>
      <th scope="row">
        <code>{monitor.url}</code>
        <p class="small muted">
          {monitorTypeLabel[monitor.type]} for {componentName} · every {monitor.intervalSeconds} s, time-out{" "}
          {monitor.timeoutMs} ms
          {monitor.expectedStatusCode !== null && `, expects ${monitor.expectedStatusCode}`} · down after{" "}
          {monitor.failureThreshold} failures · {monitor.regions === null ? "all regions" : monitor.regions.join(", ")}
        </p>
        <FailureMessage failure={failure} />
        {editing && (
          <section class="inline-form" aria-labelledby={`edit-${monitor.id}-title`}>
            <h3 id={`edit-${monitor.id}-title`}>Edit the monitor of {monitor.url}</h3>
            <MonitorForm
              id={`edit-${monitor.id}`}
              components={props.components}
              initial={monitor}
              submitLabel="Save"
              onCancel={() => setEditing(false)}
              onSaved={(saved) => {
                setEditing(false)
                props.onChanged(`The monitor of ${saved.url} was saved.`)
              }}
            />
          </section>
        )}
      </th>
      <td class="row-actions">
        <button type="button" aria-expanded={editing} onClick={() => setEditing(!editing)}>
          Edit<span class="visually-hidden">{monitor.url}</span>
        </button>
        <ConfirmButton label="Delete" confirmLabel={`Delete the monitor of ${monitor.url}`} onConfirm={remove} />
      </td>
    </tr>
  )
}

const MonitorsView = () => {
  const { loaded: monitors, message, changed } = useListScreen((api) => api.monitors.list())
  const [components] = useLoad((api) => api.components.list())

  return (
    <>
      <h1>Monitors</h1>
      <StatusMessage text={message} />
      <Loading loaded={components}>
        {(componentList) => (
          <>
            <Loading loaded={monitors}>
              {(monitorList) =>
                monitorList.length === 0 ? <p>No monitors yet.</p> : (
                  <Table caption="Monitors">
                    <thead>
                      <tr>
                        <th scope="col">Target</th>
                        <th scope="col">Actions</th>
                      </tr>
                    </thead>
                    <tbody>
                      {monitorList.map((monitor) => (
                        <MonitorRow key={monitor.id} monitor={monitor} components={componentList} onChanged={changed} />
                      ))}
                    </tbody>
                  </Table>
                )}
            </Loading>
            <section aria-labelledby="new-monitor-title">
              <h2 id="new-monitor-title">New monitor</h2>
              {componentList.length === 0
                ? <p>A monitor checks a component: create a component first.</p>
                : (
                  <MonitorForm
                    id="new-monitor"
                    components={componentList}
                    submitLabel="Create monitor"
                    onSaved={(monitor) => changed(`The monitor of ${monitor.url} was created.`)}
                  />
                )}
            </section>
          </>
        )}
      </Loading>
    </>
  )
}

export const MonitorsScreen: Screen = { path: "monitors", title: "Monitors", View: MonitorsView }
