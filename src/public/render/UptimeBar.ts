/**
 * The 90-day uptime bar of a component or a group: one cell per UTC day from the daily rollups,
 * coloured by that day's downtime, with the day's uptime and the incidents that touched the
 * component as text that shows as a tooltip (Layout's stylesheet). Days before the component was
 * created are told apart from days without data. Days, percentages and words are in the page's
 * language.
 */
import type { PublicComponent } from "../../domain/Component.js"
import type { PublicIncident } from "../../domain/Incident.js"
import type { Locale } from "../../domain/Locale.js"
import { downtimeWeight, uptimeBarDays } from "../../domain/Uptime.js"
import { uptimePercentage } from "../../domain/UptimeCalculation.js"
import { formatDay, formatPercent } from "../../i18n/Format.js"
import { messagesFor } from "../../i18n/Messages.js"
import { html, Raw } from "./Html.js"

export const barDays = uptimeBarDays
const day = 86_400_000

export interface DailyBucket {
  readonly componentId: string
  readonly bucketStart: Date
  readonly observedSeconds: number
  readonly downtimeSeconds: number
}

/** A day of a bar: its uptime in percent, no data (null), or a day before the component existed. */
type DayUptime = number | null | "before"

/** The colour class of a day: before the component existed, no data, or by how much of it was down. */
const level = (percent: DayUptime) =>
  percent === "before"
    ? "before"
    : percent === null
    ? "none"
    : percent >= 100
    ? "up"
    : percent >= 99
    ? "dip"
    : percent >= 95
    ? "down"
    : "out"

type BarIncident = Pick<PublicIncident, "title" | "componentIds" | "createdAt" | "resolvedAt">

/** What a bar shows of a component: its status, and when it was created (unknown: as if always there). */
export type BarComponent = Pick<PublicComponent, "id" | "name" | "status"> & { readonly createdAt?: number | undefined }

/** What a group's bar shows: its name and its public components. */
export interface BarGroup {
  readonly id: string
  readonly name: string
  readonly components: ReadonlyArray<BarComponent>
}

/** What drawing the bars of one render needs, found once for all its components. */
const barInputs = (
  buckets: ReadonlyArray<DailyBucket>,
  incidents: ReadonlyArray<BarIncident>,
  now: number,
  locale: Locale
) => {
  const firstDay = Math.floor(now / day) * day - (barDays - 1) * day
  // Every component's bar has the same days, and most incidents touch few components: the
  // labels and each component's incidents are found once per render, not once per cell.
  const dayLabels = Array.from({ length: barDays }, (_, i) => formatDay(firstDay + i * day, locale))
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
  return { now, firstDay, dayLabels, incidentsOf, byComponent, locale, m: messagesFor(locale) }
}
type BarInputs = ReturnType<typeof barInputs>

/** A component's days, oldest first, and its totals over those it existed on. */
const componentDays = (inputs: BarInputs, component: BarComponent) => {
  const { firstDay, now } = inputs
  const days = inputs.byComponent.get(component.id) ?? new Map<number, DailyBucket>()
  const createdAt = component.createdAt ?? Number.NEGATIVE_INFINITY
  let observed = 0
  let down = 0
  const uptimes = Array.from({ length: barDays }, (_, i): DayUptime => {
    const start = firstDay + i * day
    if (createdAt >= start + day) return "before"
    const bucket = days.get(start)
    if (bucket) {
      observed += bucket.observedSeconds
      down += bucket.downtimeSeconds
      return uptimePercentage(bucket.observedSeconds, bucket.downtimeSeconds)
    }
    // Created today, after the rollups read last (they catch up within minutes): today counts
    // from its creation, at the status it has now, rather than showing no data.
    if (i === barDays - 1 && createdAt >= start) {
      const weight = downtimeWeight(component.status)
      const seconds = Math.max(0, now - createdAt) / 1000
      observed += seconds
      down += seconds * weight
      return Math.round((1 - weight) * 100_000) / 1000
    }
    return null
  })
  const since = createdAt > firstDay ? Math.floor(createdAt / day) * day : undefined
  return { uptimes, observed, down, since }
}

/** The incidents that were open on the day starting at `start`. */
const touchingDay = (incidents: ReadonlyArray<BarIncident>, start: number, now: number) =>
  incidents.filter((incident) =>
    incident.createdAt.epochMilliseconds < start + day &&
    (incident.resolvedAt?.epochMilliseconds ?? now) >= start
  )

const dayText = (
  inputs: BarInputs,
  label: string,
  uptime: DayUptime,
  touching: ReadonlyArray<BarIncident>,
  lowest: boolean
) => {
  const { locale, m } = inputs
  const text = m.uptime.day(
    label,
    uptime === "before"
      ? lowest ? m.uptime.beforeComponents : m.uptime.beforeComponent
      : uptime === null
      ? m.uptime.noData
      : `${m.uptime.dayUptime(formatPercent(uptime, locale))}${lowest ? m.uptime.lowest : ""}`
  )
  return touching.length === 0
    ? text
    : m.uptime.withIncidents(text, touching.length, touching.map((incident) => incident.title).join("; "))
}

const renderBar = (
  inputs: BarInputs,
  label: string,
  uptimes: ReadonlyArray<DayUptime>,
  incidents: ReadonlyArray<BarIncident>,
  summary: string,
  lowest: boolean
) => {
  const cells = uptimes.map((uptime, i) => {
    const title = dayText(
      inputs,
      inputs.dayLabels[i]!,
      uptime,
      touchingDay(incidents, inputs.firstDay + i * day, inputs.now),
      lowest
    )
    // The day's text is the cell's content (screen readers read it, the stylesheet shows it as a
    // tooltip on hover and, through tabindex, on a tap). 90 cells per component: the optional
    // </li> and the class's quotes are left out, and a whole day up, most days, has no class (the
    // stylesheet's default cell), to keep the page light.
    const levelClass = level(uptime)
    return html`<li${new Raw(levelClass === "up" ? "" : ` class=${levelClass}`)} tabindex=-1><span>${title}</span>`
  })
  return html`<div class="uptime"><ol class="bar" aria-label="${label}">${cells}</ol><p class="small"><span>${
    inputs.m.uptime.daysAgo(barDays)
  }</span><span>${summary}</span><span>${inputs.m.uptime.today}</span></p></div>`
}

const totalText = ({ locale, m }: BarInputs, observed: number, down: number, since: number | undefined) => {
  if (observed === 0) return m.uptime.noDataYet
  const percent = formatPercent(uptimePercentage(observed, down), locale)
  return since === undefined ? m.uptime.overDays(percent, barDays) : m.uptime.since(percent, formatDay(since, locale))
}

const drawBar = (inputs: BarInputs, component: BarComponent) => {
  const { down, observed, since, uptimes } = componentDays(inputs, component)
  return renderBar(
    inputs,
    inputs.m.uptime.barLabel(component.name),
    uptimes,
    inputs.incidentsOf.get(component.id) ?? [],
    totalText(inputs, observed, down, since),
    false
  )
}

/**
 * A group's bar: each day the lowest uptime of its components that have one (before all of them
 * existed: before), with the incidents that touched any of them; its total is its lowest
 * component's.
 */
const drawGroupBar = (inputs: BarInputs, group: BarGroup) => {
  const members = group.components.map((component) => componentDays(inputs, component))
  const uptimes = Array.from({ length: barDays }, (_, i): DayUptime => {
    let worst: DayUptime = "before"
    for (const member of members) {
      const uptime = member.uptimes[i]!
      if (typeof uptime === "number") worst = typeof worst === "number" ? Math.min(worst, uptime) : uptime
      else if (uptime === null && worst === "before") worst = null
    }
    return worst
  })
  const incidents = [
    ...new Set(group.components.flatMap((component) => inputs.incidentsOf.get(component.id) ?? []))
  ]
  const observedMembers = members.filter((member) => member.observed > 0)
  const lowest = observedMembers.reduce<(typeof members)[number] | undefined>(
    (worst, member) =>
      worst === undefined ||
        uptimePercentage(member.observed, member.down) < uptimePercentage(worst.observed, worst.down)
        ? member
        : worst,
    undefined
  )
  const earliest = members.every((member) => member.since !== undefined)
    ? Math.min(...members.map((member) => member.since!))
    : undefined
  const summary = lowest === undefined
    ? inputs.m.uptime.noDataYet
    : inputs.m.uptime.groupTotal(totalText(inputs, lowest.observed, lowest.down, earliest))
  return renderBar(
    inputs,
    inputs.m.uptime.groupBarLabel(group.name),
    uptimes,
    incidents,
    summary,
    true
  )
}

/** What a bar depends on besides the buckets: who it is and the incidents that touched it. */
const barKey = (inputs: BarInputs, component: BarComponent) => [
  component.id,
  component.name,
  component.status,
  component.createdAt ?? null,
  (inputs.incidentsOf.get(component.id) ?? []).map((
    incident
  ) => [incident.title, incident.createdAt.epochMilliseconds, incident.resolvedAt?.epochMilliseconds ?? null])
]

/**
 * Draws the uptime bars of the status page, render after render. A bar depends only on the
 * daily buckets and the time they were read at, the component's name, status and creation and
 * the incidents that touched it, and the language; so while the buckets are the same read (a
 * minute), a render reuses the bars of the render before in its language whose component and
 * incidents are unchanged, and draws only the others. The bars are nearly all of the page, and
 * during an outage it is rendered again at every incident update. Only the last render's bars of
 * each language are kept.
 */
export const uptimeBarRenderer = () => {
  const last = new Map<
    Locale,
    { readonly buckets: ReadonlyArray<DailyBucket>; readonly now: number; readonly bars: Map<string, Raw> }
  >()
  return (
    buckets: ReadonlyArray<DailyBucket>,
    incidents: ReadonlyArray<BarIncident>,
    now: number,
    locale: Locale
  ) => {
    const before = last.get(locale)
    const reusable = before?.buckets === buckets && before.now === now ? before.bars : undefined
    const bars = new Map<string, Raw>()
    last.set(locale, { buckets, now, bars })
    const inputs = barInputs(buckets, incidents, now, locale)
    const reuse = (key: string, draw: () => Raw) => {
      const bar = bars.get(key) ?? reusable?.get(key) ?? draw()
      bars.set(key, bar)
      return bar
    }
    return {
      component: (component: BarComponent): Raw =>
        reuse(JSON.stringify(barKey(inputs, component)), () => drawBar(inputs, component)),
      group: (group: BarGroup): Raw =>
        reuse(
          JSON.stringify([
            "group",
            group.id,
            group.name,
            group.components.map((component) => barKey(inputs, component))
          ]),
          () => drawGroupBar(inputs, group)
        )
    }
  }
}
