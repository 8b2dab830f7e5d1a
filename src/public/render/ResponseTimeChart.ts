/**
 * The response-time chart of a component on the status page: the hourly 95th percentile of
 * each region over the last 24 hours, as inline SVG (no script), one line per region told
 * apart by dash pattern and a legend. Its text alternative is the SVG's title and description
 * and a visually hidden table of each region's figures. Drawn from the rollups read with the
 * uptime buckets (once a minute), never per view. Its words and times are in the page's language
 * and time zone.
 */
import { DateTime } from "effect"

import type { PublicComponent } from "../../domain/Component.js"
import type { Locale } from "../../domain/Locale.js"
import type { RegionResponseTimes } from "../../domain/ResponseTimes.js"
import { type Messages, messagesFor } from "../../i18n/Messages.js"
import type { RecentResponseTimes } from "../../services/monitoring/ResponseTimes.js"
import { chartGeometry, type ChartSeries, formatMs, seriesSummary } from "../../web/ResponseTimeChart.js"
import { fill, html, Raw } from "./Html.js"
import { type TimeFormatter, timeFormatter } from "./Times.js"

const hour = 3_600_000

/** The regions' hourly p95 as chart series. */
export const p95Series = (regions: ReadonlyArray<RegionResponseTimes>): Array<ChartSeries> =>
  regions.map((region) => ({
    region: region.region,
    points: region.points.map((point) => ({ at: point.at.epochMilliseconds, value: point.p95Ms, count: point.count }))
  }))

/**
 * Coordinates in whole viewBox units (a pixel at most at full width): they are most of a chart's
 * bytes, and their decimals the part gzip cannot shrink.
 */
const whole = (points: string) => points.replace(/\d+\.\d+/g, (n) => String(Math.round(Number(n))))
const at = (n: number) => Math.round(n)

/**
 * The chart. Its accessible name and description are its first `<title>` and `<desc>` (no ids
 * to refer to them); attributes shared by several shapes are set once on a group.
 */
const svg = (m: Messages, name: string, series: ReadonlyArray<ChartSeries>, from: number) => {
  const geometry = chartGeometry({
    series,
    from,
    slotMillis: hour,
    slots: 24,
    xLabels: [m.responseTimes.hoursAgo24, m.responseTimes.hoursAgo12, m.responseTimes.now]
  })
  const { plot } = geometry
  return html`<svg role="img" viewBox="0 0 ${geometry.width} ${geometry.height}" width="100%" preserveAspectRatio="xMinYMin meet" font-size="12" font-family="system-ui,sans-serif"><title>${
    fill(m.responseTimes.title, name)
  }</title><desc>${
    fill(m.responseTimes.description, series.map((s) => s.region).join(m.listSeparator))
  }</desc><g stroke="#d0d7de">${
    geometry.yTicks.map((tick) =>
      html`<line x1="${plot.left}" x2="${plot.right}" y1="${at(tick.y)}" y2="${at(tick.y)}"/>`
    )
  }</g><g fill="#57606a"><g text-anchor="end">${
    geometry.yTicks.map((tick) => html`<text x="${plot.left - 6}" y="${at(tick.y) + 4}">${tick.label}</text>`)
  }</g>${
    geometry.xTicks.map((tick) =>
      html`<text x="${tick.x}" y="${plot.bottom + 18}"${
        tick.anchor === "start" ? "" : html` text-anchor="${tick.anchor}"`
      }>${tick.label}</text>`
    )
  }</g>${
    geometry.lines.map((line) =>
      html`<g stroke="${line.colour}" fill="none" stroke-width="2"${
        line.dash ? html` stroke-dasharray="${line.dash}"` : ""
      }>${line.runs.map((points) => html`<polyline points="${whole(points)}"/>`)}${
        line.markers.map((marker) =>
          html`<circle cx="${at(marker.x)}" cy="${
            at(marker.y)
          }" r="2.5" fill="${line.colour}" stroke-dasharray="none"/>`
        )
      }<line x1="${line.legend.x}" x2="${line.legend.x + 28}" y1="${line.legend.y - 4}" y2="${line.legend.y - 4}"/></g>`
    )
  }<g fill="#1f2328">${
    geometry.lines.map((line) => html`<text x="${line.legend.x + 34}" y="${line.legend.y}">${line.region}</text>`)
  }</g></svg>`
}

/** Each region's figures, for people who cannot see the lines. A table ignores `width: 1px`: its box is hidden. */
const table = (m: Messages, name: string, series: ReadonlyArray<ChartSeries>, time: TimeFormatter) => {
  const hour = (value: number, at: number) =>
    fill(m.responseTimes.hourFrom, formatMs(value), time(DateTime.makeUnsafe(at)))
  return html`<div class="vh"><table><caption>${
    fill(m.responseTimes.caption, name)
  }</caption><thead><tr><th scope="col">${m.responseTimes.region}</th><th scope="col">${m.responseTimes.latestHour}</th><th scope="col">${m.responseTimes.slowestHour}</th><th scope="col">${m.responseTimes.checks}</th></tr></thead><tbody>${
    series.map(seriesSummary).map((summary) =>
      html`<tr><th scope="row">${summary.region}</th><td>${
        summary.latest && hour(summary.latest.value, summary.latest.at)
      }</td><td>${
        summary.highest && hour(summary.highest.value, summary.highest.at)
      }</td><td>${summary.checks}</td></tr>`
    )
  }</tbody></table></div>`
}

const drawChart = (
  m: Messages,
  recent: RecentResponseTimes,
  component: PublicComponent,
  time: TimeFormatter
): Raw => {
  const series = p95Series(recent.regions.get(component.id) ?? [])
  if (series.length === 0) {
    return html`<p class="small">${m.responseTimes.none}</p>`
  }
  return html`<figure class="response-times"><figcaption class="small">${m.responseTimes.figcaption}</figcaption>${
    svg(m, component.name, series, recent.from)
  }${table(m, component.name, series, time)}</figure>`
}

/**
 * Draws the charts of the status page, render after render: a chart depends only on the read,
 * the component's name and the page's time zone and language, so while the read is the same (a
 * minute) each is drawn once for each zone and language. A component without monitors gets none.
 */
export const responseTimeChartRenderer = () => {
  let last: { readonly recent: RecentResponseTimes; readonly charts: Map<string, Raw> } | undefined
  return (recent: RecentResponseTimes, timeZone: string, locale: Locale) => {
    if (last?.recent !== recent) last = { recent, charts: new Map() }
    const { charts } = last
    const m = messagesFor(locale)
    const time = timeFormatter(timeZone, locale)
    return (component: PublicComponent): Raw => {
      if (!recent.monitored.has(component.id)) return new Raw("")
      const key = `${timeZone}|${locale}|${component.id}|${component.name}`
      const chart = charts.get(key) ?? drawChart(m, recent, component, time)
      charts.set(key, chart)
      return chart
    }
  }
}
