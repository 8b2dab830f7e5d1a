/**
 * The geometry of a response-time chart, shared by the status page (SVG as text) and the
 * dashboard (Preact): one line per region over a row of equal time slots, each region told
 * apart by its dash pattern and named in a legend, so colour is never the only cue. Pure: it
 * computes coordinates and words, and draws nothing.
 */

export interface ChartSeries {
  readonly region: string
  /** The region's values by slot start (epoch ms); slots without a value are gaps in the line. */
  readonly points: ReadonlyArray<{ readonly at: number; readonly value: number; readonly count: number }>
}

export interface ChartInput {
  readonly series: ReadonlyArray<ChartSeries>
  /** Start of the first slot, slot length and number of slots. */
  readonly from: number
  readonly slotMillis: number
  readonly slots: number
  /** Words under the x axis: at its start, middle and end. */
  readonly xLabels: readonly [string, string, string]
}

export interface ChartLine {
  readonly region: string
  readonly dash: string
  readonly colour: string
  /** Runs of adjacent slots, each a polyline's `points`; a lone point is drawn as a marker. */
  readonly runs: ReadonlyArray<string>
  readonly markers: ReadonlyArray<{ readonly x: number; readonly y: number }>
  readonly legend: { readonly x: number; readonly y: number }
}

export interface ChartGeometry {
  readonly width: number
  readonly height: number
  readonly plot: { readonly left: number; readonly right: number; readonly top: number; readonly bottom: number }
  readonly yTicks: ReadonlyArray<{ readonly y: number; readonly label: string }>
  readonly xTicks: ReadonlyArray<
    { readonly x: number; readonly label: string; readonly anchor: "start" | "middle" | "end" }
  >
  readonly lines: ReadonlyArray<ChartLine>
}

/** Dash patterns, then colours (each at least 3:1 on white), by the region's place in the sorted list. */
const dashes = ["", "8 4", "2 3", "12 4 2 4", "4 4", "1 5"]
const colours = ["#0b57d0", "#bc4c00", "#1a7f37", "#8250df", "#cf222e", "#57606a"]

const width = 640
const plot = { left: 56, right: 628, top: 10, bottom: 110 }
const legendColumns = 4
const legendRow = 18

/** `ms` for people: "850 ms", "1.2 s". */
export const formatMs = (ms: number): string =>
  ms < 1000 ? `${Number(ms.toFixed(ms < 10 ? 1 : 0))} ms` : `${Number((ms / 1000).toFixed(ms < 10_000 ? 2 : 1))} s`

/** A round top for the y axis and its step: 1, 2 or 5 times a power of ten, in at most four steps. */
const scale = (max: number) => {
  const target = Math.max(max, 1) / 4
  const power = 10 ** Math.floor(Math.log10(target))
  const step = [1, 2, 5, 10].map((f) => f * power).find((candidate) => candidate >= target)!
  return { top: step * Math.ceil(Math.max(max, 1) / step), step }
}

export const chartGeometry = (input: ChartInput): ChartGeometry => {
  const max = Math.max(0, ...input.series.flatMap((series) => series.points.map((point) => point.value)))
  const { step, top } = scale(max)
  const slotWidth = (plot.right - plot.left) / input.slots
  const xOf = (slot: number) => plot.left + (slot + 0.5) * slotWidth
  const yOf = (value: number) => plot.bottom - (value / top) * (plot.bottom - plot.top)
  const round = (n: number) => Math.round(n * 10) / 10
  const legendTop = plot.bottom + 34

  const lines = input.series.map((series, index): ChartLine => {
    const runs: Array<Array<{ x: number; y: number }>> = []
    let previous = Number.NEGATIVE_INFINITY
    for (const point of [...series.points].sort((a, b) => a.at - b.at)) {
      const slot = Math.round((point.at - input.from) / input.slotMillis)
      if (slot < 0 || slot >= input.slots) continue
      const at = { x: round(xOf(slot)), y: round(yOf(point.value)) }
      if (slot === previous + 1) runs.at(-1)!.push(at)
      else runs.push([at])
      previous = slot
    }
    return {
      region: series.region,
      dash: dashes[index % dashes.length]!,
      colour: colours[index % colours.length]!,
      runs: runs.filter((run) => run.length > 1).map((run) => run.map(({ x, y }) => `${x},${y}`).join(" ")),
      markers: runs.filter((run) => run.length === 1).map((run) => run[0]!),
      legend: {
        x: plot.left + (index % legendColumns) * ((plot.right - plot.left) / legendColumns),
        y: legendTop + Math.floor(index / legendColumns) * legendRow
      }
    }
  })
  const yTicks = Array.from({ length: Math.round(top / step) + 1 }, (_, i) => ({
    y: round(yOf(i * step)),
    label: formatMs(i * step)
  }))
  const [start, middle, end] = input.xLabels
  return {
    width,
    height: legendTop + Math.max(1, Math.ceil(input.series.length / legendColumns)) * legendRow - 6,
    plot,
    yTicks,
    xTicks: [
      { x: plot.left, label: start, anchor: "start" },
      { x: (plot.left + plot.right) / 2, label: middle, anchor: "middle" },
      { x: plot.right, label: end, anchor: "end" }
    ],
    lines
  }
}

/** What a text alternative says of one region: its latest and highest value (with its slot start), and its checks. */
export const seriesSummary = (series: ChartSeries) => {
  const points = [...series.points].sort((a, b) => a.at - b.at)
  const highest = points.reduce<(typeof points)[number] | undefined>(
    (best, point) => best === undefined || point.value > best.value ? point : best,
    undefined
  )
  return {
    region: series.region,
    latest: points.at(-1),
    highest,
    checks: points.reduce((sum, point) => sum + point.count, 0)
  }
}
