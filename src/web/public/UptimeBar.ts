/**
 * The 90-day uptime bar of a component: one cell per UTC day from the daily rollups, coloured by
 * that day's downtime, with the day's uptime and the incidents that touched the component as text
 * that shows as a tooltip (Layout's stylesheet).
 */
import type { PublicComponent } from "../../domain/Component.js"
import type { PublicIncident } from "../../domain/Incident.js"
import { uptimeBarDays } from "../../domain/Uptime.js"
import { uptimePercentage } from "../../domain/UptimeCalculation.js"
import { html, Raw } from "./Html.js"

export const barDays = uptimeBarDays
const day = 86_400_000

export interface DailyBucket {
  readonly componentId: string
  readonly bucketStart: Date
  readonly observedSeconds: number
  readonly downtimeSeconds: number
}

/** The colour class of a day: no data, or by how much of it was down. */
const level = (percent: number | null) =>
  percent === null ? "none" : percent >= 100 ? "up" : percent >= 99 ? "dip" : percent >= 95 ? "down" : "out"

const dayFormat = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", day: "numeric", month: "short", year: "numeric" })

const formatPercent = (percent: number) => `${Number(percent.toFixed(2))} %`

type BarIncident = Pick<PublicIncident, "title" | "componentIds" | "createdAt" | "resolvedAt">

/** What drawing the bars of one render needs, found once for all its components. */
const barInputs = (buckets: ReadonlyArray<DailyBucket>, incidents: ReadonlyArray<BarIncident>, now: number) => {
  const firstDay = Math.floor(now / day) * day - (barDays - 1) * day
  // Every component's bar has the same days, and most incidents touch few components: the
  // labels and each component's incidents are found once per render, not once per cell.
  const dayLabels = Array.from({ length: barDays }, (_, i) => dayFormat.format(firstDay + i * day))
  const incidentsOf = new Map<string, Array<BarIncident>>()
  for (const incident of incidents) {
    for (const componentId of new Set(incident.componentIds)) {
      const touching = incidentsOf.get(componentId) ?? []
      touching.push(incident)
      incidentsOf.set(componentId, touching)
    }
  }
  const byComponent = new Map<string, Map<number, DailyBucket>>()
  for (const bucket of buckets) {
    const days = byComponent.get(bucket.componentId) ?? new Map<number, DailyBucket>()
    days.set(bucket.bucketStart.getTime(), bucket)
    byComponent.set(bucket.componentId, days)
  }
  return { now, firstDay, dayLabels, incidentsOf, byComponent }
}

const drawBar = (inputs: ReturnType<typeof barInputs>, component: PublicComponent) => {
  const { dayLabels, firstDay, now } = inputs
  const days = inputs.byComponent.get(component.id) ?? new Map<number, DailyBucket>()
  const componentIncidents = inputs.incidentsOf.get(component.id) ?? []
  let observed = 0
  let down = 0
  const cells = Array.from({ length: barDays }, (_, i) => {
    const start = firstDay + i * day
    const bucket = days.get(start)
    if (bucket) {
      observed += bucket.observedSeconds
      down += bucket.downtimeSeconds
    }
    const percent = bucket ? uptimePercentage(bucket.observedSeconds, bucket.downtimeSeconds) : null
    const touching = componentIncidents.filter((incident) =>
      incident.createdAt.epochMillis < start + day &&
      (incident.resolvedAt?.epochMillis ?? now) >= start
    )
    const title = `${dayLabels[i]}: ${percent === null ? "no data" : `${formatPercent(percent)} uptime`}${
      touching.length === 0
        ? ""
        : `; ${touching.length === 1 ? "incident" : "incidents"}: ${
          touching.map((incident) => incident.title).join("; ")
        }`
    }`
    // The day's text is the cell's content (screen readers read it, the stylesheet shows it as a
    // tooltip on hover and, through tabindex, on a tap). 90 cells per component: the optional
    // </li> and the class's quotes are left out to keep the page light.
    return html`<li class=${new Raw(level(percent))} tabindex=-1><span>${title}</span>`
  })
  const summary = observed === 0
    ? "No uptime data yet"
    : `${formatPercent(uptimePercentage(observed, down))} uptime over ${barDays} days`
  return html`<div class="uptime"><ol class="bar" aria-label="Daily uptime of ${component.name}, oldest first">${cells}</ol><p class="small"><span>${barDays} days ago</span><span>${summary}</span><span>Today</span></p></div>`
}

/**
 * Draws the uptime bars of the status page, render after render. A bar depends only on the
 * daily buckets and the time they were read at, the component's name and the incidents that
 * touched it; so while the buckets are the same read (a minute), a render reuses the bars of
 * the render before whose component and incidents are unchanged, and draws only the others.
 * The bars are nearly all of the page, and during an outage it is rendered again at every
 * incident update. Only the last render's bars are kept.
 */
export const uptimeBarRenderer = () => {
  let last:
    | { readonly buckets: ReadonlyArray<DailyBucket>; readonly now: number; readonly bars: Map<string, Raw> }
    | undefined
  return (buckets: ReadonlyArray<DailyBucket>, incidents: ReadonlyArray<BarIncident>, now: number) => {
    const reusable = last?.buckets === buckets && last.now === now ? last.bars : undefined
    const bars = new Map<string, Raw>()
    last = { buckets, now, bars }
    const inputs = barInputs(buckets, incidents, now)
    return (component: PublicComponent): Raw => {
      const touching = inputs.incidentsOf.get(component.id) ?? []
      const key = JSON.stringify([
        component.id,
        component.name,
        touching.map((
          incident
        ) => [incident.title, incident.createdAt.epochMillis, incident.resolvedAt?.epochMillis ?? null])
      ])
      const bar = bars.get(key) ?? reusable?.get(key) ?? drawBar(inputs, component)
      bars.set(key, bar)
      return bar
    }
  }
}
