/**
 * Overview, the dashboard's first screen: what is wrong now (GET /api/v1/admin/overview), each
 * item linking to the screen that deals with it, and each open incident with its "Post update"
 * form in place: from here an operator on a phone posts an update in two taps. It reads again
 * as soon as the live stream says something it shows changed (core/live.ts). What no change
 * notice carries (a probe falling silent, a webhook giving up, mail piling up) it reads again
 * every minute while the tab is visible, and at once when the tab is shown again. A failed read
 * keeps what it showed.
 */
import type { ComponentChildren } from "preact"
import { useCallback, useEffect, useState } from "preact/hooks"

import type { OverviewReport } from "../../../../domain/Overview.js"
import { incidentStatusLabel, monitorTypeLabel, severityLabel } from "../../../Labels.js"
import { useCan } from "../core/access.js"
import { call } from "../core/api.js"
import type { Failure } from "../core/failure.js"
import { useLiveRefresh } from "../core/live.js"
import { href } from "../core/router.js"
import type { Screen } from "../core/Screen.js"
import { FailureMessage, StatusMessage, When } from "../ui/feedback.js"
import { useComponentChoices, useReadWhileVisible } from "../ui/requests.js"
import { FreshEditor, OpenButton } from "../ui/resources.js"
import { PostUpdate } from "./IncidentsScreen.js"

type Report = typeof OverviewReport.Type
type MonitorItem = Report["monitors"][number]
type ProbeRegion = Report["probes"][number]
type IncidentItem = Report["incidents"][number]

/** How often the overview reads again what no change notice carries (probes, webhooks, mail). */
export const refreshEvery = 60_000

const liveKinds = ["components", "incidents", "maintenance", "monitors", "organization"] as const

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`

/** A wait in words: "45 seconds", "12 minutes", "3 hours 5 minutes". */
const duration = (seconds: number) => {
  if (seconds < 120) return plural(seconds, "second", "seconds")
  const minutes = Math.floor(seconds / 60)
  if (minutes < 120) return plural(minutes, "minute", "minutes")
  const hours = Math.floor(minutes / 60)
  return `${plural(hours, "hour", "hours")}${minutes % 60 === 0 ? "" : ` ${plural(minutes % 60, "minute", "minutes")}`}`
}

/** One section: a heading with its count in words, and the items or a sentence saying there are none. */
const Section = (props: {
  readonly id: string
  readonly title: string
  readonly count: number
  readonly shown: number
  readonly none: string
  readonly children: ComponentChildren
}) => (
  <section aria-labelledby={`overview-${props.id}`}>
    <h2 id={`overview-${props.id}`}>
      {props.title}: {props.count === 0 ? "none" : props.count}
    </h2>
    {props.count === 0 ? <p class="muted">{props.none}</p> : (
      <>
        {props.shown < props.count && <p class="muted">The first {props.shown} of {props.count}.</p>}
        <ul>{props.children}</ul>
      </>
    )}
  </section>
)

const MonitorEntry = ({ monitor }: { readonly monitor: MonitorItem }) => (
  <li>
    <a href={href("monitors", { id: monitor.id })}>{monitor.componentName}</a>{" "}
    <span class="badge bad">{monitor.state === "down" ? "Down" : "Degraded"}</span> since <When at={monitor.since} />
    <p class="small muted">
      {monitorTypeLabel[monitor.type as keyof typeof monitorTypeLabel] ?? monitor.type} · <code>{monitor.url}</code>
    </p>
    {monitor.regions.length > 0 && (
      <ul class="small">
        {monitor.regions.map((region) => (
          <li key={region.region}>
            <strong>{region.region}</strong>: {region.status === "failing"
              ? (
                <>
                  failing{region.failingSince !== null && (
                    <>
                      {" "}since <When at={region.failingSince} />
                    </>
                  )} ({plural(region.consecutiveFailures, "failed check", "failed checks")} in a row)
                </>
              )
              : `slow (${Math.round(region.lastDurationMs)} ms)`}
            {region.lastError !== null && (
              <>
                {" "}— <span class="result-bad">{region.lastError}</span>
              </>
            )}
            <span class="muted">
              {" "}· last checked <When at={region.lastCheckedAt} />
            </span>
          </li>
        ))}
      </ul>
    )}
  </li>
)

/** The incidents screen's update form, on the incident read afresh; the components are read only once it opens. */
const UpdateForm = (props: {
  readonly incident: IncidentItem
  readonly onCancel: () => void
  readonly onPosted: (title: string) => void
}) => {
  const components = useComponentChoices()
  return (
    <FreshEditor
      read={(api) => api.incidents.get({ params: { id: props.incident.id }, responseMode: "decoded-and-response" })}
    >
      {(fresh, etag) => (
        <PostUpdate
          incident={fresh}
          etag={etag}
          components={components}
          onCancel={props.onCancel}
          onPosted={(updated) => props.onPosted(updated.title)}
        />
      )}
    </FreshEditor>
  )
}

/**
 * An open incident: what it is, and "Post update" opening the incidents screen's own form in
 * place, read afresh with its ETag (a newer update posted meanwhile refuses this one, 412).
 */
const IncidentEntry = ({ incident }: { readonly incident: IncidentItem }) => {
  const can = useCan()
  const [posting, setPosting] = useState(false)
  const [posted, setPosted] = useState("")
  return (
    <li class="overview-incident">
      <a href={href("incidents")}>{incident.title}</a>{" "}
      <span class="badge">
        {incidentStatusLabel[incident.status]}
      </span>
      {!incident.isPublic && <span class="badge">private</span>}
      <p class="small muted">
        {severityLabel[incident.severity]} · opened <When at={incident.startedAt} /> · updated{" "}
        <When at={incident.updatedAt} />
      </p>
      <StatusMessage text={posted} />
      {can("incidents.addUpdate") && (
        <OpenButton
          open={posting}
          onToggle={() => setPosting(!posting)}
          label="Post update"
          hidden={`on ${incident.title}`}
        />
      )}
      {posting && (
        <UpdateForm
          incident={incident}
          onCancel={() => setPosting(false)}
          onPosted={(title) => {
            setPosting(false)
            setPosted(`The update on ${title} was posted.`)
          }}
        />
      )}
    </li>
  )
}

const ProbeRegionEntry = ({ region }: { readonly region: ProbeRegion }) => (
  <li>
    <a href={href("probes")}>{region.region}</a>: {region.regionOffline
      ? <span class="result-bad">no probe online, so this region counts as no data for quorum</span>
      : `${plural(region.offlineCount, "probe", "probes")} offline, ${region.online} online`}
    <ul class="small">
      {region.offline.map((probe) => (
        <li key={probe.name}>
          {probe.name} <span class="badge bad">Offline</span> last seen <When at={probe.lastSeenAt} />
          {probe.version !== "" && <span class="muted">{" "}· version {probe.version}</span>}
        </li>
      ))}
      {region.offline.length < region.offlineCount && (
        <li class="muted">and {region.offlineCount - region.offline.length} more</li>
      )}
    </ul>
  </li>
)

const ReportView = ({ report }: { readonly report: Report }) => {
  const { counts, mail } = report
  return (
    <>
      {report.allClear && (
        <p class="result-ok">
          ✓ All clear: no monitor is down or degraded, no incident is open, every probe is online, webhooks deliver and
          mail is not backing up.
        </p>
      )}
      <Section
        id="monitors"
        title="Monitors down or degraded"
        count={counts.monitorsDown + counts.monitorsDegraded}
        shown={report.monitors.length}
        none="Every monitor is up or not checked yet."
      >
        {report.monitors.map((monitor) => <MonitorEntry key={monitor.id} monitor={monitor} />)}
      </Section>
      <Section
        id="incidents"
        title="Open incidents"
        count={counts.incidentsOpen}
        shown={report.incidents.length}
        none="No incident is open."
      >
        {report.incidents.map((incident) => <IncidentEntry key={incident.id} incident={incident} />)}
      </Section>
      <Section
        id="probes"
        title="Probes offline"
        count={counts.probesOffline}
        shown={counts.probesOffline}
        none="Every probe that sends heartbeats is online."
      >
        {report.probes.map((region) => <ProbeRegionEntry key={region.region} region={region} />)}
      </Section>
      <Section
        id="webhooks"
        title="Webhooks failing"
        count={counts.webhooksFailing}
        shown={report.webhooks.length}
        none="No active webhook is failing."
      >
        {report.webhooks.map((webhook) => (
          <li key={webhook.id}>
            <a href={href("webhooks")}>{webhook.name}</a>: {[
              webhook.consecutiveFailures > 0 &&
              `${plural(webhook.consecutiveFailures, "delivery", "deliveries")} given up in a row`,
              webhook.retrying > 0 && `${plural(webhook.retrying, "delivery", "deliveries")} retrying`
            ].filter(Boolean).join(", ")}
            {webhook.lastError !== null && (
              <p class="small">
                Last error: <span class="result-bad">{webhook.lastError}</span>
                {webhook.lastFailedAt !== null && (
                  <span class="muted">
                    {" "}at <When at={webhook.lastFailedAt} />
                  </span>
                )}
              </p>
            )}
          </li>
        ))}
      </Section>
      <section aria-labelledby="overview-mail">
        <h2 id="overview-mail">Mail: {mail.backingUp ? "backing up" : "flowing"}</h2>
        {mail.waiting === 0 ? <p class="muted">No mail is waiting to be sent.</p> : (
          <p>
            <a href={href("subscribers")}>{plural(mail.waiting, "mail", "mails")} waiting</a>
            {mail.retrying > 0 && `, ${mail.retrying} of them after a failed attempt`}
            {mail.oldestWaitingSeconds !== null && `; the oldest for ${duration(mail.oldestWaitingSeconds)}`}.
            {mail.backingUp && <span class="badge bad">Backing up</span>}
          </p>
        )}
        {mail.lastError !== null && (
          <p class="small">
            Last error: <span class="result-bad">{mail.lastError}</span>
          </p>
        )}
      </section>
    </>
  )
}

const OverviewView = () => {
  const [report, setReport] = useState<Report | null>(null)
  const [failure, setFailure] = useState<Failure | null>(null)

  const load = useCallback(async () => {
    const outcome = await call((api) => api.overview.get())
    if (outcome.ok) setReport(outcome.value)
    setFailure(outcome.ok ? null : outcome.failure)
  }, [])

  useLiveRefresh(liveKinds, load)

  useEffect(() => void load(), [load])
  useReadWhileVisible(load, refreshEvery)

  return (
    <>
      <h1>Overview</h1>
      <p class="muted">
        What is wrong now, updated as things change
        {report !== null && (
          <>
            ; last updated <When at={report.generatedAt} />
          </>
        )}.
      </p>
      <FailureMessage failure={failure} />
      {report === null
        ? (failure === null && <p class="loading" aria-busy="true">Loading…</p>)
        : <ReportView report={report} />}
    </>
  )
}

export const OverviewScreen: Screen = {
  path: "overview",
  group: "now",
  needs: "overview.get",
  title: "Overview",
  View: OverviewView
}
