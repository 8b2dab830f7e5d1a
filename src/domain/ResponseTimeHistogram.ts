/**
 * A response-time histogram with fixed, log-spaced buckets: eight per doubling from 1 ms to
 * about 60 s, one below 1 ms and one above. Fixed bounds make histograms of different hours,
 * regions and monitors mergeable by adding counts, so the rollups keep one per hour and day and a
 * percentile of any period is read from them, never from the raw checks.
 *
 * A percentile is the nearest-rank percentile of the recorded values (the value at rank
 * ⌈q × count⌉), estimated by the geometric middle of the bucket that holds it, kept within the
 * smallest and largest value recorded. From 1 ms up, its relative error is at most
 * `relativeError` (2^(1/16) − 1, under 4.5 %); below 1 ms the error is under 1 ms.
 */

/** Buckets per doubling of the duration. */
export const perDoubling = 8
/** The last bounded bucket ends at 2^(127/8) ms ≈ 60.1 s; the one after holds everything slower. */
const bounded = Math.ceil(perDoubling * Math.log2(60_000))
export const bucketCount = bounded + 2

/** The largest relative error of a percentile of values of 1 ms or more. */
export const relativeError = 2 ** (1 / (2 * perDoubling)) - 1

export interface ResponseTimeHistogram {
  readonly count: number
  readonly sumMs: number
  /** Smallest and largest value recorded; 0 when the histogram is empty. */
  readonly minMs: number
  readonly maxMs: number
  /** Counts per bucket, from bucket 0 (below 1 ms); trailing empty buckets are left out. */
  readonly buckets: ReadonlyArray<number>
}

export const empty: ResponseTimeHistogram = { count: 0, sumMs: 0, minMs: 0, maxMs: 0, buckets: [] }

/** The bucket of a duration: 0 below 1 ms, then [2^((i−1)/8), 2^(i/8)) ms, the last one unbounded. */
export const bucketOf = (ms: number): number =>
  ms < 1 ? 0 : Math.min(Math.floor(perDoubling * Math.log2(ms)) + 1, bucketCount - 1)

/** The bounds of bucket `index`, in ms (the last one's upper bound is infinite). */
export const bucketBounds = (index: number): readonly [number, number] =>
  index === 0
    ? [0, 1]
    : [2 ** ((index - 1) / perDoubling), index === bucketCount - 1 ? Infinity : 2 ** (index / perDoubling)]

/** What a bucket stands for: its geometric middle (the middle of the first; the lower bound of the last). */
const representative = (index: number): number =>
  index === 0 ? 0.5 : index === bucketCount - 1 ? bucketBounds(index)[0] : 2 ** ((index - 0.5) / perDoubling)

const trimmed = (buckets: Array<number>): Array<number> => {
  let end = buckets.length
  while (end > 0 && buckets[end - 1] === 0) end--
  return end === buckets.length ? buckets : buckets.slice(0, end)
}

/** The histogram of some durations (ms, not negative). */
export const fromDurations = (durations: Iterable<number>): ResponseTimeHistogram => {
  const buckets: Array<number> = []
  let count = 0
  let sumMs = 0
  let minMs = Infinity
  let maxMs = -Infinity
  for (const ms of durations) {
    const index = bucketOf(ms)
    while (buckets.length <= index) buckets.push(0)
    buckets[index]!++
    count++
    sumMs += ms
    minMs = Math.min(minMs, ms)
    maxMs = Math.max(maxMs, ms)
  }
  return count === 0 ? empty : { count, sumMs, minMs, maxMs, buckets }
}

/** The histogram of the values of both. */
export const merge = (a: ResponseTimeHistogram, b: ResponseTimeHistogram): ResponseTimeHistogram => {
  if (a.count === 0) return b
  if (b.count === 0) return a
  const buckets = Array.from(
    { length: Math.max(a.buckets.length, b.buckets.length) },
    (_, i) => (a.buckets[i] ?? 0) + (b.buckets[i] ?? 0)
  )
  return {
    count: a.count + b.count,
    sumMs: a.sumMs + b.sumMs,
    minMs: Math.min(a.minMs, b.minMs),
    maxMs: Math.max(a.maxMs, b.maxMs),
    buckets: trimmed(buckets)
  }
}

/** The estimated `q`-quantile (0 < q ≤ 1, e.g. 0.95) of the recorded values; null when there are none. */
export const percentile = (histogram: ResponseTimeHistogram, q: number): number | null => {
  if (histogram.count === 0) return null
  const rank = Math.max(1, Math.ceil(q * histogram.count))
  let seen = 0
  for (let index = 0; index < histogram.buckets.length; index++) {
    seen += histogram.buckets[index]!
    if (seen >= rank) return Math.min(Math.max(representative(index), histogram.minMs), histogram.maxMs)
  }
  return histogram.maxMs
}

/** The mean of the recorded values; null when there are none. */
export const mean = (histogram: ResponseTimeHistogram): number | null =>
  histogram.count === 0 ? null : histogram.sumMs / histogram.count
