/**
 * Monitors: the fleet as a list in the manner of Uptime Kuma, each monitor one line with its
 * state in words, its component and target, and a heartbeat bar of its recent runs (every region
 * in one bar), worst first. Choosing one opens its detail (MonitorDetail) beside the list, or in
 * its place on a phone, with a way back. Below the list, the form that creates one (MonitorForm).
 *
 * `reload` reads the list and the bars shown again: on a live change to monitors or components
 * (core/live.ts), and every minute while the tab is visible, since a run that changes no state
 * sends no change notice.
 */
import { Effect } from "effect"
import { type RefObject } from "preact"
import { useCallback, useEffect, useRef, useState } from "preact/hooks"

import { everyItem } from "../../../../client/Pages.js"
import type { MonitorId } from "../../../../domain/Monitor.js"
import { useCan } from "../core/access.js"
import { call } from "../core/api.js"
import type { Failure } from "../core/failure.js"
import { useLiveRefresh } from "../core/live.js"
import { href, useRouteQuery } from "../core/router.js"
import type { Screen } from "../core/Screen.js"
import { FailureMessage, Loading } from "../ui/feedback.js"
import { HeartbeatBar, HeartbeatLegend, tallyOf, tallyPhrase } from "../ui/HeartbeatBar.js"
import { type Loaded, useLoad, useReadWhileVisible } from "../ui/requests.js"
import { NewSection, ResourcePage } from "../ui/resources.js"
import { MonitorDetail, type ShownState, StateBadge, stateLabel, stateOf } from "./MonitorDetail.js"
import { type ComponentJson, MonitorForm, type MonitorJson } from "./MonitorForm.js"
import { type RecentRuns, useRecentRuns } from "./recentRuns.js"

/** How often the list and its bars are read again while the tab is visible: a monitor's default interval. */
export const refreshEvery = 60_000
const liveRefreshAtMostEvery = 10_000

const liveKinds = ["monitors", "components"] as const

/** Worst first, as an operator in an outage reads the list. */
const severity: Record<ShownState, number> = { down: 0, degraded: 1, "no-data": 2, up: 3, paused: 4 }

const byWorstFirst = (names: ReadonlyMap<string, string>) => (a: MonitorJson, b: MonitorJson) =>
  severity[stateOf(a)] - severity[stateOf(b)] ||
  (names.get(a.componentId) ?? "").localeCompare(names.get(b.componentId) ?? "") ||
  a.url.localeCompare(b.url)

/** "5 monitors: 1 down, 1 degraded, 2 up, 1 paused". */
const countsPhrase = (monitors: ReadonlyArray<MonitorJson>) => {
  const counts = new Map<ShownState, number>()
  for (const monitor of monitors) counts.set(stateOf(monitor), (counts.get(stateOf(monitor)) ?? 0) + 1)
  const parts = (Object.keys(severity) as Array<ShownState>)
    .filter((state) => counts.has(state))
    .map((state) => `${counts.get(state)} ${stateLabel[state].toLowerCase()}`)
  return `${monitors.length} ${monitors.length === 1 ? "monitor" : "monitors"}: ${parts.join(", ")}`
}

const selectButtonId = (id: MonitorId) => `select-${id.replace(/[^A-Za-z0-9_-]/g, "_")}`

/** The first field of the New monitor form, or its heading when it has none (no component yet). */
const goToNewMonitor = (event: Event) => {
  event.preventDefault()
  const field = document.getElementById("new-monitor-component")
  const target = field ?? document.getElementById("new-monitor-title")
  target?.scrollIntoView({ block: "center" })
  field?.focus()
}

/** Calls `onSeen` once, when `element` first comes near the viewport. */
const useSeen = (element: RefObject<HTMLElement | null>, onSeen: () => void) => {
  useEffect(() => {
    const node = element.current
    if (node === null) return
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) {
        observer.disconnect()
        onSeen()
      }
    }, { rootMargin: "200px" })
    observer.observe(node)
    return () => observer.disconnect()
  }, [])
}

const LineRuns = (
  props: { readonly monitor: MonitorJson; readonly name: string; readonly recent: RecentRuns | undefined }
) => {
  const { monitor, recent } = props
  if (recent?.runs == null) {
    return (
      <>
        <HeartbeatBar runs={[]} degradedAboveMs={monitor.degradedAboveMs} name={props.name} />
        {recent?.failure
          ? <p class="small run-failed">The recent runs could not be read: {recent.failure.message}</p>
          : <p class="small muted">Reading the recent runs…</p>}
      </>
    )
  }
  return (
    <>
      <HeartbeatBar runs={recent.runs} degradedAboveMs={monitor.degradedAboveMs} name={props.name} />
      <p class="small muted">
        {recent.runs.length === 0 ? "No runs yet." : tallyPhrase(tallyOf(recent.runs, monitor.degradedAboveMs))}
      </p>
    </>
  )
}

const MonitorLine = (props: {
  readonly monitor: MonitorJson
  readonly componentName: string
  readonly recent: RecentRuns | undefined
  readonly selected: boolean
  readonly onSelect: (id: MonitorId) => void
  readonly onSeen: (id: MonitorId) => void
}) => {
  const { monitor } = props
  const line = useRef<HTMLLIElement>(null)
  useSeen(line, () => props.onSeen(monitor.id))
  return (
    <li ref={line} class={`monitor-line${props.selected ? " selected" : ""}`}>
      <div class="monitor-line-head">
        <StateBadge monitor={monitor} />
        <button
          type="button"
          id={selectButtonId(monitor.id)}
          class="monitor-select"
          aria-current={props.selected ? "true" : undefined}
          aria-controls={props.selected ? "monitor-detail" : undefined}
          onClick={() => props.onSelect(monitor.id)}
        >
          <span class="visually-hidden">Details of</span>
          <span class="monitor-name">{props.componentName}</span>
          <span class="monitor-target">{monitor.url}</span>
        </button>
      </div>
      <LineRuns monitor={monitor} name={`${props.componentName} (${monitor.url})`} recent={props.recent} />
    </li>
  )
}

/** With no monitor yet: what to do first, and where. */
const NoMonitors = (props: { readonly components: number; readonly mayCreate: boolean }) =>
  props.mayCreate
    ? (
      <div class="monitors-empty">
        <p>
          <strong>No monitors yet.</strong>{" "}
          A monitor checks a component's address from every probe region and sets the component's status from what it
          finds.
        </p>
        <ol>
          <li>
            {props.components === 0
              ? (
                <>
                  First add a component, what your readers see (such as "Checkout"), on the{" "}
                  <a href={href("components")}>Components</a> screen.
                </>
              )
              : <>You have {props.components === 1 ? "a component" : `${props.components} components`} to check.</>}
          </li>
          <li>
            Then add its monitor with the{" "}
            <a href={href("monitors")} onClick={goToNewMonitor}>New monitor form</a>: what to check, and how often.
          </li>
        </ol>
      </div>
    )
    : <p>No monitors yet. An administrator adds them.</p>

interface Lists {
  readonly monitors: ReadonlyArray<MonitorJson>
  readonly components: ReadonlyArray<ComponentJson>
}

const MonitorsView = () => {
  const [lists, setLists] = useState<Loaded<Lists>>({ state: "loading" })
  // A failed read again keeps the list shown and says so above it.
  const [refreshFailure, setRefreshFailure] = useState<Failure | null>(null)
  const [templates] = useLoad((api) => everyItem(api.incidentTemplates.list))
  // Without templates (none, or not loaded) the menu offers only None; the monitors still show.
  const templateList = templates.state === "ready" ? templates.value : []
  const [message, setMessage] = useState("")
  // The monitor whose detail is open is in the address (`#/monitors?id=…`): links open it directly.
  const route = useRouteQuery()
  const selectedId = (route.params.get("id") as MonitorId | null) ?? null
  // Another monitor, or none: the open detail (and an edit form in it) goes, so unsaved edits ask first.
  const setSelectedId = (id: MonitorId | null) => route.replace(id === null ? {} : { id }, selectedId !== null)
  // Where focus goes when the detail closes: the line's button, or the list's heading (deleted).
  const focusAfterClose = useRef<string | null>(null)
  const recent = useRecentRuns()
  const can = useCan()

  /** Reads the list, the components it names and the bars shown again. */
  const reload = useCallback(async () => {
    const outcome = await call((api) =>
      Effect.all([everyItem(api.monitors.list), everyItem(api.components.list)], { concurrency: 2 })
    )
    if (!outcome.ok) {
      setLists((previous) => previous.state === "ready" ? previous : { state: "failed", failure: outcome.failure })
      setRefreshFailure(outcome.failure)
      return
    }
    const [monitors, components] = outcome.value
    setLists({ state: "ready", value: { monitors, components } })
    setRefreshFailure(null)
    await recent.refresh(monitors.map((monitor) => monitor.id))
  }, [recent.refresh])

  // Read at most every 10 s however fast changes come (a flapping outage), through one runner
  // with the minute's timer, so rounds never overlap.
  const refresh = useLiveRefresh(liveKinds, reload, liveRefreshAtMostEvery)

  useEffect(() => void reload(), [reload])
  useReadWhileVisible(refresh, refreshEvery)

  const changed = (text: string) => {
    setMessage(text)
    void reload()
  }
  const select = (id: MonitorId) => {
    recent.show(id)
    setSelectedId(id)
  }
  const close = (focus: string) => {
    focusAfterClose.current = focus
    setSelectedId(null)
  }

  const monitors = lists.state === "ready" ? lists.value.monitors : []
  const selected = monitors.find((monitor) => monitor.id === selectedId)

  // A detail opened by its address reads its runs too (on a phone its line is not on screen).
  useEffect(() => {
    if (selectedId !== null) recent.show(selectedId)
  }, [selectedId])

  // A monitor deleted elsewhere closes its detail.
  useEffect(() => {
    if (lists.state === "ready" && selectedId !== null && selected === undefined) close("monitor-list-title")
  }, [lists])

  // Once the detail is closed (and, on a phone, the list is back), focus returns to where it was.
  useEffect(() => {
    if (selectedId !== null || focusAfterClose.current === null) return
    document.getElementById(focusAfterClose.current)?.focus()
    focusAfterClose.current = null
  }, [selectedId])

  return (
    <ResourcePage title="Monitors" message={message}>
      <Loading loaded={lists}>
        {({ monitors, components }) => {
          const names = new Map(components.map((component) => [component.id as string, component.name]))
          const nameOf = (monitor: MonitorJson) => names.get(monitor.componentId) ?? "Unknown component"
          return (
            <>
              {refreshFailure !== null && (
                <FailureMessage
                  failure={{
                    ...refreshFailure,
                    message: `Could not read the monitors again: ${refreshFailure.message}`
                  }}
                />
              )}
              <div class={`monitors-layout${selected ? " has-selection" : ""}`}>
                <div class="monitors-main">
                  <section class="monitor-list" aria-labelledby="monitor-list-title">
                    <h2 id="monitor-list-title" tabIndex={-1}>All monitors</h2>
                    {monitors.length === 0
                      ? <NoMonitors components={components.length} mayCreate={can("monitors.create")} />
                      : (
                        <>
                          <p class="monitor-counts">
                            {countsPhrase(monitors)}
                            {can("monitors.create") && (
                              <>
                                {" · "}
                                <a href={href("monitors")} onClick={goToNewMonitor}>Add a monitor</a>
                              </>
                            )}
                          </p>
                          <HeartbeatLegend />
                          <ul class="monitor-lines">
                            {[...monitors].sort(byWorstFirst(names)).map((monitor) => (
                              <MonitorLine
                                key={monitor.id}
                                monitor={monitor}
                                componentName={nameOf(monitor)}
                                recent={recent.byMonitor.get(monitor.id)}
                                selected={monitor.id === selectedId}
                                onSelect={select}
                                onSeen={recent.show}
                              />
                            ))}
                          </ul>
                        </>
                      )}
                  </section>
                  {can("monitors.create") && (
                    <NewSection id="new-monitor" title="New monitor">
                      {components.length === 0
                        ? <p>A monitor checks a component: create a component first.</p>
                        : (
                          <MonitorForm
                            id="new-monitor"
                            components={components}
                            templates={templateList}
                            submitLabel="Create monitor"
                            onSaved={(monitor) => changed(`The monitor of ${monitor.url} was created.`)}
                          />
                        )}
                    </NewSection>
                  )}
                </div>
                {selected && (
                  <MonitorDetail
                    key={selected.id}
                    monitor={selected}
                    componentName={nameOf(selected)}
                    components={components}
                    templates={templateList}
                    recent={recent.byMonitor.get(selected.id)}
                    onChanged={changed}
                    onDeleted={(text) => {
                      close("monitor-list-title")
                      changed(text)
                    }}
                    onClose={() => close(selectButtonId(selected.id))}
                  />
                )}
              </div>
            </>
          )
        }}
      </Loading>
    </ResourcePage>
  )
}

export const MonitorsScreen: Screen = {
  path: "monitors",
  group: "setup",
  needs: "monitors.list",
  title: "Monitors",
  View: MonitorsView
}
