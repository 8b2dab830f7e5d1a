/**
 * A monitor's response times by region: the 95th percentile per hour (24 hours, 7 days) or per
 * day (30 days), one line per region told apart by dash pattern and legend, as on the status
 * page, with a visually hidden table of each region's figures.
 */
import { useEffect, useState } from "preact/hooks"

import type { MonitorId } from "../../../../domain/Monitor.js"
import type { MonitorResponseTimes, ResponseTimesPeriod } from "../../../../domain/ResponseTimes.js"
import { windowOf } from "../../../../domain/ResponseTimes.js"
import { chartGeometry, type ChartSeries, formatMs, seriesSummary } from "../../../ResponseTimeChart.js"
import { call } from "../core/api.js"
import type { Failure } from "../core/failure.js"
import { FailureMessage } from "./feedback.js"

const hour = 3_600_000

const periods: Record<ResponseTimesPeriod, {
  readonly label: string
  readonly slots: number
  readonly slotMillis: number
  readonly xLabels: readonly [string, string, string]
}> = {
  "24h": { label: "last 24 hours", slots: 24, slotMillis: hour, xLabels: ["24 h ago", "12 h ago", "Now"] },
  "7d": { label: "last 7 days", slots: 168, slotMillis: hour, xLabels: ["7 days ago", "3½ days ago", "Now"] },
  "30d": { label: "last 30 days", slots: 30, slotMillis: 24 * hour, xLabels: ["30 days ago", "15 days ago", "Today"] }
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" })

type Answer = typeof MonitorResponseTimes.Type

const seriesOf = (answer: Answer): Array<ChartSeries> =>
  answer.regions.map((region) => ({
    region: region.region,
    points: region.points.map((point) => ({ at: point.at.epochMilliseconds, value: point.p95Ms, count: point.count }))
  }))

const Chart = (props: { readonly id: string; readonly name: string; readonly answer: Answer }) => {
  const period = periods[props.answer.period]
  const series = seriesOf(props.answer)
  if (series.length === 0) return <p class="small muted">No check answered in the {period.label}.</p>
  const geometry = chartGeometry({
    series,
    from: windowOf(props.answer.period, Date.now()).from,
    slotMillis: period.slotMillis,
    slots: period.slots,
    xLabels: period.xLabels
  })
  const { plot } = geometry
  return (
    <>
      <svg
        class="response-time-chart"
        role="img"
        aria-labelledby={`${props.id}-t ${props.id}-d`}
        viewBox={`0 0 ${geometry.width} ${geometry.height}`}
        font-size="12"
      >
        <title id={`${props.id}-t`}>Response times of {props.name}, {period.label}</title>
        <desc id={`${props.id}-d`}>
          The 95th percentile per {period.slotMillis === hour ? "hour" : "day"}, one line per region (
          {series.map((s) => s.region).join(", ")}). The figures follow in a table.
        </desc>
        {geometry.yTicks.map((tick) => (
          <g key={tick.y}>
            <line x1={plot.left} x2={plot.right} y1={tick.y} y2={tick.y} stroke="#d0d7de" />
            <text x={plot.left - 6} y={tick.y + 4} text-anchor="end" fill="#57606a">{tick.label}</text>
          </g>
        ))}
        {geometry.xTicks.map((tick) => (
          <text key={tick.x} x={tick.x} y={plot.bottom + 18} text-anchor={tick.anchor} fill="#57606a">
            {tick.label}
          </text>
        ))}
        {geometry.lines.map((line) => (
          <g key={line.region}>
            <g stroke={line.colour} fill="none" stroke-width="2" stroke-dasharray={line.dash || undefined}>
              {line.runs.map((points) => <polyline key={points} points={points} />)}
              {line.markers.map((marker) => (
                <circle key={`${marker.x}`} cx={marker.x} cy={marker.y} r="2.5" fill={line.colour} />
              ))}
              <line x1={line.legend.x} x2={line.legend.x + 28} y1={line.legend.y - 4} y2={line.legend.y - 4} />
            </g>
            <text x={line.legend.x + 34} y={line.legend.y} fill="#1f2328">{line.region}</text>
          </g>
        ))}
      </svg>
      {/* A table ignores `width: 1px`: its box is what is hidden. */}
      <div class="visually-hidden">
        <table>
          <caption>Response times of {props.name} by region, {period.label} (95th percentile)</caption>
          <thead>
            <tr>
              <th scope="col">Region</th>
              <th scope="col">Latest</th>
              <th scope="col">Slowest</th>
              <th scope="col">Checks</th>
            </tr>
          </thead>
          <tbody>
            {series.map(seriesSummary).map((summary) => (
              <tr key={summary.region}>
                <th scope="row">{summary.region}</th>
                <td>
                  {summary.latest &&
                    `${formatMs(summary.latest.value)} (from ${dateFormat.format(new Date(summary.latest.at))})`}
                </td>
                <td>
                  {summary.highest &&
                    `${formatMs(summary.highest.value)} (from ${dateFormat.format(new Date(summary.highest.at))})`}
                </td>
                <td>{summary.checks}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  )
}

/** The chart of one monitor, with a choice of period; loads when shown. */
export const ResponseTimeChart = (props: { readonly monitorId: MonitorId; readonly name: string }) => {
  const [period, setPeriod] = useState<ResponseTimesPeriod>("24h")
  const [answer, setAnswer] = useState<Answer | null>(null)
  const [failure, setFailure] = useState<Failure | null>(null)
  useEffect(() => {
    let current = true
    void call((api) => api.responseTimes.ofMonitor({ params: { id: props.monitorId }, query: { period } })).then(
      (outcome) => {
        if (!current) return
        setAnswer(outcome.ok ? outcome.value : null)
        setFailure(outcome.ok ? null : outcome.failure)
      }
    )
    return () => {
      current = false
    }
  }, [props.monitorId, period])
  const id = `rt-${props.monitorId.replace(/[^A-Za-z0-9_-]/g, "_")}`
  return (
    <figure class="response-times" aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`} class="small">
        Response time by region (95th percentile),{" "}
        <label for={`${id}-period`} class="visually-hidden">Period of the response times of {props.name}</label>
        <select
          id={`${id}-period`}
          value={period}
          onChange={(event) => setPeriod(event.currentTarget.value as ResponseTimesPeriod)}
        >
          {Object.entries(periods).map(([value, { label }]) => <option key={value} value={value}>{label}</option>)}
        </select>
      </figcaption>
      <FailureMessage failure={failure} />
      {answer === null
        ? failure === null && <p class="loading" aria-busy="true">Loading…</p>
        : <Chart id={id} name={props.name} answer={answer} />}
    </figure>
  )
}
