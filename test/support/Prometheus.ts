/**
 * Prometheus text as the tests read it: parsed by parse-prometheus-text-format, once each
 * histogram's lines are in the order that parser expects.
 */
import parse, { type Family } from "parse-prometheus-text-format"

/** The labels of a histogram sample line without `le`: the series it belongs to. */
const seriesOf = (line: string, name: string) => {
  // The value (a number) follows the labels' closing brace, which label values may contain too.
  const labels = line[name.length] === "{" ? line.slice(name.length + 1, line.lastIndexOf("}")) : ""
  return labels.replace(/(^|,)le="[^"]*"/, "").replace(/^,/, "")
}

/**
 * Puts each histogram series' `_bucket` lines before its `_sum` and `_count`. The OpenTelemetry
 * serializer writes `_count` and `_sum` first, which is valid Prometheus text, but
 * parse-prometheus-text-format throws ("Cannot set properties of undefined") on such a histogram
 * without labels of its own (yunyu/parse-prometheus-text-format#14): it expects the order of
 * Prometheus' own clients, buckets then sum then count.
 */
export const bucketsFirst = (text: string): string => {
  const lines: Array<string> = []
  let histogram: string | undefined
  let series = new Map<string, { buckets: Array<string>; sum: Array<string>; count: Array<string> }>()
  const flush = () => {
    for (const { buckets, count, sum } of series.values()) lines.push(...buckets, ...sum, ...count)
    series = new Map()
  }
  for (const line of text.split("\n")) {
    const name = /^[^\s{#]+/.exec(line)?.[0]
    const part = histogram === undefined || name === undefined
      ? undefined
      : name === `${histogram}_bucket`
      ? "buckets"
      : name === `${histogram}_sum`
      ? "sum"
      : name === `${histogram}_count`
      ? "count"
      : undefined
    if (part === undefined) {
      flush()
      if (line.startsWith("# HELP ")) histogram = undefined
      const type = /^# TYPE (\S+) (\S+)\s*$/.exec(line)
      if (type !== null) histogram = type[2] === "histogram" ? type[1] : undefined
      lines.push(line)
      continue
    }
    const key = seriesOf(line, name!)
    let entry = series.get(key)
    if (entry === undefined) series.set(key, entry = { buckets: [], sum: [], count: [] })
    entry[part].push(line)
  }
  flush()
  return lines.join("\n")
}

/** Prometheus text parsed into its families. */
export const parseMetrics = (text: string): Array<Family> => parse(bucketsFirst(text))

/** The family called `name`, if the text has it. */
export const family = (families: ReadonlyArray<Family>, name: string) => families.find((f) => f.name === name)

/** The sum of the values of `name`'s series whose labels include `labels` (0 when none). */
export const valueOf = (families: ReadonlyArray<Family>, name: string, labels: Record<string, string> = {}) =>
  family(families, name)?.metrics
    .filter((m) => Object.entries(labels).every(([key, value]) => m.labels?.[key] === value))
    .reduce((sum, m) => sum + Number(m.value), 0) ?? 0

export type { Family }
