/**
 * One monitor in detail, beside the list (or in its place on a phone): what each region last
 * found, the last error, the recent runs as a bar and as a list, the response times, its
 * settings, and what may be done to it (edit, pause or resume, delete).
 */
import { DateTime } from "effect"
import { useEffect, useRef, useState } from "preact/hooks"

import { describeAssertion } from "../../../../domain/JsonAssertion.js"
import type { QuorumRule } from "../../../../domain/Monitor.js"
import { monitorTypeLabel } from "../../../Labels.js"
import { formatMs } from "../../../ResponseTimeChart.js"
import { useCan } from "../core/access.js"
import { ConfirmButton, FailureMessage, When } from "../ui/feedback.js"
import { beatOf, HeartbeatBar, runOutcome, runTime, tallyOf, tallyPhrase } from "../ui/HeartbeatBar.js"
import { PushUrl } from "../ui/PushUrl.js"
import { FreshEditor, InlineSection, OpenButton, useOpenPart, useRowActions } from "../ui/resources.js"
import { ResponseTimeChart } from "../ui/ResponseTimeChart.js"
import { type ComponentJson, MonitorForm, type MonitorJson, type TemplateJson } from "./MonitorForm.js"
import type { RecentRuns } from "./recentRuns.js"

/** A monitor's state in words; paused first, since a paused monitor's state is `unknown`. */
export const stateOf = (monitor: MonitorJson) =>
  monitor.paused ? "paused" : monitor.state === "unknown" ? "no-data" : monitor.state

export type ShownState = ReturnType<typeof stateOf>

export const stateLabel: Record<ShownState, string> = {
  down: "Down",
  degraded: "Degraded",
  "no-data": "No data",
  up: "Up",
  paused: "Paused"
}

const badgeClass: Record<ShownState, string> = {
  down: "badge bad",
  degraded: "badge degraded",
  "no-data": "badge",
  up: "badge ok",
  paused: "badge"
}

export const StateBadge = ({ monitor }: { readonly monitor: MonitorJson }) => {
  const state = stateOf(monitor)
  return <span class={`${badgeClass[state]} monitor-state`}>{stateLabel[state]}</span>
}

const quorumPhrase = (quorum: QuorumRule) =>
  quorum === "majority"
    ? "a majority of regions"
    : quorum === "any"
    ? "any region"
    : quorum === "all"
    ? "every region"
    : `${quorum} region${quorum === 1 ? "" : "s"}`

/** The incident a monitor opens on an outage, in words. */
const incidentPhrase = (monitor: MonitorJson, templates: ReadonlyArray<TemplateJson>) => {
  if (monitor.incidentPolicy === "off") return "no incident on outage"
  const template = monitor.incidentTemplateId === null
    ? "the default text"
    : `template ${templates.find((t) => t.id === monitor.incidentTemplateId)?.name ?? monitor.incidentTemplateId}`
  const opens = monitor.incidentPolicy === "draft" ? "opens a draft incident" : "opens and publishes an incident"
  return `on outage ${opens} from ${template}, resolved after ${monitor.resolveAfterSeconds} s up`
}

/** What the check does, in one line: "HTTP(S) request GET every 60 s, time-out 10000 ms, expects 200". */
const checkPhrase = (monitor: MonitorJson) => {
  const method = monitor.method === null ? "" : ` ${monitor.method}`
  const values = monitor.dnsExpectedValues === null ? "" : ` ${monitor.dnsExpectedValues.join(", ")}`
  return [
    `${monitorTypeLabel[monitor.type]}${method} every ${monitor.intervalSeconds} s`,
    monitor.graceSeconds === null ? `time-out ${monitor.timeoutMs} ms` : `grace ${monitor.graceSeconds} s`,
    monitor.expectedStatusCodes !== null && `expects ${monitor.expectedStatusCodes.join(", ")}`,
    monitor.dnsRecordType !== null && `${monitor.dnsRecordType} record${values}`,
    monitor.bodyContains !== null && `body contains "${monitor.bodyContains}"`,
    monitor.bodyNotContains !== null && `body does not contain "${monitor.bodyNotContains}"`,
    monitor.assertions !== null && `JSON: ${monitor.assertions.map(describeAssertion).join("; ")}`
  ].filter((part) => part !== false).join(", ")
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`

/** Each region's last check, and whether it counts for quorum now; a region named but never heard from says so. */
const Regions = ({ monitor }: { readonly monitor: MonitorJson }) => {
  const heard = new Set(monitor.regionStates.map((region) => region.region))
  const silent = (monitor.regions ?? []).filter((region) => !heard.has(region))
  return (
    <>
      <p class="small muted">
        {monitor.reportingRegions.length === 0
          ? "No region reporting"
          : `Reporting: ${monitor.reportingRegions.join(", ")}`}
      </p>
      {monitor.regionStates.length === 0 && silent.length === 0
        ? <p class="muted">No region has checked it yet.</p>
        : (
          <ul class="region-states">
            {monitor.regionStates.map((region) => {
              const slow = region.ok && monitor.degradedAboveMs !== null &&
                region.lastDurationMs > monitor.degradedAboveMs
              return (
                <li key={region.region}>
                  <strong>{region.region}</strong>{" "}
                  <span class={region.ok ? (slow ? "run-slow" : "run-ok") : "run-failed"}>
                    {region.ok ? (slow ? "Slow" : "OK") : "Failed"}
                  </span>{" "}
                  in {formatMs(region.lastDurationMs)}
                  {region.lastStatusCode !== null && `, HTTP ${region.lastStatusCode}`},{" "}
                  <When at={region.lastCheckedAt} />
                  {!region.ok && ` · ${plural(region.consecutiveFailures, "failure", "failures")} in a row`}
                  {region.lastError !== null && <p class="small run-error">{region.lastError}</p>}
                  {!monitor.reportingRegions.includes(region.region) && (
                    <p class="small muted">Not counted now: no recent check from this region (no data for quorum).</p>
                  )}
                </li>
              )
            })}
            {silent.map((region) => (
              <li key={region}>
                <strong>{region}</strong> <span class="muted">No data: no check from this region yet.</span>
              </li>
            ))}
          </ul>
        )}
    </>
  )
}

/** The newest failed run among those read, else each failing region's error. */
const LastError = ({ monitor, recent }: { readonly monitor: MonitorJson; readonly recent: RecentRuns | undefined }) => {
  const failed = recent?.runs?.find((run) => run.outcome === "checked" && !run.ok)
  if (failed !== undefined && failed.outcome === "checked") {
    return (
      <p>
        <span class="run-error">{failed.error ?? `HTTP ${failed.statusCode ?? "error"}`}</span>{" "}
        <span class="small muted">({failed.region}, {runTime(failed)})</span>
      </p>
    )
  }
  const failing = monitor.regionStates.filter((region) => region.lastError !== null)
  if (failing.length > 0) {
    return (
      <p>
        <span class="run-error">{failing[0]!.lastError}</span> <span class="small muted">({failing[0]!.region})</span>
      </p>
    )
  }
  return <p class="muted">No failed check among the recent runs.</p>
}

const Runs = (
  props: { readonly monitor: MonitorJson; readonly name: string; readonly recent: RecentRuns | undefined }
) => {
  const { monitor, recent } = props
  if (recent === undefined || (recent.runs === null && recent.failure === null)) {
    return <p class="loading" aria-busy="true">Loading the recent runs…</p>
  }
  return (
    <>
      <FailureMessage failure={recent.failure} />
      {recent.runs !== null && (recent.runs.length === 0
        ? <p class="muted">No runs yet: the first check comes within an interval ({monitor.intervalSeconds} s).</p>
        : (
          <>
            <p class="small">{tallyPhrase(tallyOf(recent.runs, monitor.degradedAboveMs))}</p>
            <HeartbeatBar runs={recent.runs} degradedAboveMs={monitor.degradedAboveMs} name={props.name} />
            {/* Folded: the bar says the same to a screen reader, and the pane stays short on a phone. */}
            <details class="run-details">
              <summary>Each run, newest first ({recent.runs.length})</summary>
              <ol class="run-list" aria-label={`Recent runs of ${props.name}, newest first`}>
                {recent.runs.map((run) => {
                  const beat = beatOf(run, monitor.degradedAboveMs)
                  return (
                    <li key={`${run.region}-${DateTime.toEpochMillis(run.scheduledAt)}`}>
                      <span class="run-time">{runTime(run)}</span> <span class="run-region">{run.region}</span>{" "}
                      <span class={`run-${beat}`}>{runOutcome(run, monitor.degradedAboveMs)}</span>
                    </li>
                  )
                })}
              </ol>
            </details>
          </>
        ))}
    </>
  )
}

export const MonitorDetail = (props: {
  readonly monitor: MonitorJson
  readonly componentName: string
  readonly components: ReadonlyArray<ComponentJson>
  readonly templates: ReadonlyArray<TemplateJson>
  readonly recent: RecentRuns | undefined
  /** Says what changed in the status line and reads the list again. */
  readonly onChanged: (message: string) => void
  readonly onDeleted: (message: string) => void
  readonly onClose: () => void
}) => {
  const { monitor } = props
  const name = `${props.componentName} (${monitor.url})`
  const editor = useOpenPart(props.onChanged)
  const { failure, act } = useRowActions(props.onChanged)
  const can = useCan()
  const heading = useRef<HTMLHeadingElement>(null)

  // Opened (or another monitor chosen): the heading takes focus, so a screen reader starts here.
  useEffect(() => {
    heading.current?.focus()
  }, [monitor.id])

  const pauseOrResume = () =>
    act(
      (api) =>
        monitor.paused
          ? api.monitors.resume({ params: { id: monitor.id } })
          : api.monitors.pause({ params: { id: monitor.id } }),
      (saved) => `The monitor of ${monitor.url} is ${saved.paused ? "paused" : "checked again"}.`
    )
  /** The token a rotation made, shown until another monitor is opened. */
  const [pushToken, setPushToken] = useState<string | null>(null)
  useEffect(() => setPushToken(null), [monitor.id])
  const rotate = async () => {
    const outcome = await act(
      (api) => api.monitors.rotatePushToken({ params: { id: monitor.id } }),
      () => `The push token of ${name} was replaced; the old URL no longer works.`
    )
    if (outcome.ok) setPushToken(outcome.value.pushToken ?? null)
  }
  const remove = async () => {
    const outcome = await act((api) => api.monitors.remove({ params: { id: monitor.id } }))
    if (outcome.ok) props.onDeleted(`The monitor of ${monitor.url} was deleted.`)
  }

  return (
    <section id="monitor-detail" class="monitor-detail" aria-labelledby="monitor-detail-title">
      <button type="button" class="monitor-detail-close" onClick={props.onClose}>
        <span class="narrow-only">
          <span aria-hidden="true">←</span> Back to all monitors
        </span>
        <span class="wide-only">
          Close <span class="visually-hidden">the details of {name}</span>
        </span>
      </button>
      <h2 id="monitor-detail-title" tabIndex={-1} ref={heading}>
        {props.componentName} <code class="monitor-target">{monitor.url}</code>
      </h2>
      <p class="monitor-detail-state">
        <StateBadge monitor={monitor} />
        {monitor.paused && <span class="small muted">Not checked until resumed.</span>}
      </p>
      <FailureMessage failure={failure} />
      <div class="row-actions">
        {can("monitors.update") && (
          <OpenButton open={editor.open} onToggle={editor.toggle} label="Edit" hidden={monitor.url} />
        )}
        {can(monitor.paused ? "monitors.resume" : "monitors.pause") && (
          <button type="button" onClick={pauseOrResume}>
            {monitor.paused ? "Resume" : "Pause"}
            <span class="visually-hidden">{monitor.url}</span>
          </button>
        )}
        {monitor.type === "push" && can("monitors.rotatePushToken") && (
          <ConfirmButton
            label="New push URL"
            name={`New push URL for ${name}`}
            confirmLabel="Replace the push URL (the old one stops working)"
            onConfirm={() => void rotate()}
          />
        )}
        {can("monitors.remove") && (
          <ConfirmButton
            label="Delete"
            name={`Delete ${name}`}
            confirmLabel={`Delete the monitor of ${monitor.url}`}
            onConfirm={() => void remove()}
          />
        )}
      </div>
      {pushToken !== null && <PushUrl id={`push-url-${monitor.id}`} token={pushToken} />}
      {editor.open && (
        <InlineSection id={`edit-${monitor.id}`} title={`Edit the monitor of ${monitor.url}`}>
          <FreshEditor
            read={(api) => api.monitors.get({ params: { id: monitor.id }, responseMode: "decoded-and-response" })}
          >
            {(fresh, etag) => (
              <MonitorForm
                id={`edit-${monitor.id}`}
                components={props.components}
                templates={props.templates}
                initial={fresh}
                etag={etag}
                submitLabel="Save"
                onCancel={editor.close}
                onSaved={(saved) => editor.done(`The monitor of ${saved.url} was saved.`)}
              />
            )}
          </FreshEditor>
        </InlineSection>
      )}

      <h3>Regions</h3>
      <Regions monitor={monitor} />

      <h3>Last error</h3>
      <LastError monitor={monitor} recent={props.recent} />

      <h3>Recent runs</h3>
      <Runs monitor={monitor} name={name} recent={props.recent} />

      <h3>Response times</h3>
      <ResponseTimeChart monitorId={monitor.id} name={monitor.url} />

      <h3>Settings</h3>
      <dl class="profile monitor-settings">
        <dt>Check</dt>
        <dd>{checkPhrase(monitor)}</dd>
        <dt>Down after</dt>
        <dd>{plural(monitor.failureThreshold, "failure", "failures")} in a row in {quorumPhrase(monitor.quorum)}</dd>
        <dt>Regions</dt>
        <dd>{monitor.regions === null ? "all regions" : monitor.regions.join(", ")}</dd>
        <dt>Degraded</dt>
        <dd>{monitor.degradedAboveMs === null ? "never" : `above ${monitor.degradedAboveMs} ms`}</dd>
        <dt>Incident</dt>
        <dd>{incidentPhrase(monitor, props.templates)}</dd>
      </dl>
    </section>
  )
}
