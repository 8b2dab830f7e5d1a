/**
 * Probes: the probe agents by region, from their heartbeats, online or offline in words. The
 * screen refreshes itself every 10 seconds (a probe's heartbeat period), keeping what it showed
 * when a refresh fails.
 */
import { DateTime } from "effect"
import { useCallback, useEffect, useState } from "preact/hooks"

import { everyItem } from "../../../../client/Pages.js"
import type { ProbeView } from "../../../../domain/Probe.js"
import { heartbeatEvery } from "../../../../domain/ProbeHeartbeat.js"
import { call } from "../core/api.js"
import type { Failure } from "../core/failure.js"
import type { Screen } from "../core/Screen.js"
import { FailureMessage, Table } from "../ui/feedback.js"

type ProbeJson = typeof ProbeView.Type

// As often as a probe sends a heartbeat: refreshing faster would show nothing new.
const refreshEvery = heartbeatEvery

// Seconds matter here: a probe is offline after 30 of them.
const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" })

const At = ({ at }: { readonly at: DateTime.Utc }) => (
  <time dateTime={DateTime.formatIso(at)} title={DateTime.formatIso(at)}>
    {timeFormat.format(DateTime.toDate(at))}
  </time>
)

/** The probes grouped by region, in the server's order (region, then name). */
const byRegion = (probes: ReadonlyArray<ProbeJson>) => {
  const regions = new Map<string, Array<ProbeJson>>()
  for (const probe of probes) {
    const list = regions.get(probe.region) ?? []
    list.push(probe)
    regions.set(probe.region, list)
  }
  return [...regions.entries()]
}

const State = ({ online }: { readonly online: boolean }) =>
  online ? <span class="badge ok">Online</span> : <span class="badge bad">Offline</span>

const RegionProbes = ({ region, probes }: { readonly region: string; readonly probes: ReadonlyArray<ProbeJson> }) => {
  const online = probes.filter((probe) => probe.online).length
  const headingId = `region-${region}`
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId}>{region}</h2>
      <p class={online === 0 ? "result-bad" : "muted"}>
        {online === 0
          ? "No probe online: this region counts as no data for quorum."
          : `${online} of ${probes.length} ${probes.length === 1 ? "probe" : "probes"} online`}
      </p>
      <Table caption={`Probes of ${region}`}>
        <thead>
          <tr>
            <th scope="col">Probe</th>
            <th scope="col">State</th>
            <th scope="col">Last seen</th>
            <th scope="col">Version</th>
            <th scope="col">Checks/min</th>
            <th scope="col">Lag</th>
            <th scope="col">In flight</th>
            <th scope="col">Started</th>
          </tr>
        </thead>
        <tbody>
          {probes.map((probe) => (
            <tr key={probe.name}>
              <th scope="row">{probe.name}</th>
              <td>
                <State online={probe.online} />
              </td>
              <td>
                <At at={probe.lastSeenAt} />
              </td>
              <td>{probe.version === "" ? <span class="muted">unknown</span> : <code>{probe.version}</code>}</td>
              <td>{probe.checksLastMinute}</td>
              <td>{probe.lagMs} ms</td>
              <td>{probe.inFlight} of {probe.concurrency}</td>
              <td>
                <At at={probe.startedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
    </section>
  )
}

const ProbesView = () => {
  const [probes, setProbes] = useState<ReadonlyArray<ProbeJson> | null>(null)
  const [failure, setFailure] = useState<Failure | null>(null)
  const [updatedAt, setUpdatedAt] = useState<DateTime.Utc | null>(null)

  const load = useCallback(async () => {
    const outcome = await call((api) => everyItem(api.probes.list))
    if (outcome.ok) {
      setProbes(outcome.value)
      setUpdatedAt(DateTime.nowUnsafe())
    }
    setFailure(outcome.ok ? null : outcome.failure)
  }, [])

  useEffect(() => {
    void load()
    const timer = setInterval(() => void load(), refreshEvery)
    return () => clearInterval(timer)
  }, [load])

  return (
    <>
      <h1>Probes</h1>
      <p class="muted">
        Every probe sends a heartbeat every 10 seconds and is offline after 30 seconds of silence. A region with no
        probe online counts as no data for quorum, not as a failing region. This list refreshes every 10 seconds
        {updatedAt !== null && (
          <>
            ; last updated <At at={updatedAt} />
          </>
        )}.
      </p>
      <FailureMessage failure={failure} />
      {probes === null
        ? (failure === null && <p class="loading" aria-busy="true">Loading…</p>)
        : probes.length === 0
        ? (
          <p>
            No probe has sent a heartbeat yet. Probes of older versions check without one; their results still count.
          </p>
        )
        : byRegion(probes).map(([region, list]) => <RegionProbes key={region} region={region} probes={list} />)}
    </>
  )
}

export const ProbesScreen: Screen = {
  path: "probes",
  group: "setup",
  needs: "probes.list",
  title: "Probes",
  View: ProbesView
}
