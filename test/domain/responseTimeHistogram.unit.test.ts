import { describe, expect, it } from "vitest"

import {
  bucketBounds,
  bucketCount,
  bucketOf,
  empty,
  fromDurations,
  mean,
  merge,
  percentile,
  relativeError
} from "../../src/domain/ResponseTimeHistogram.js"

/** A seeded generator (mulberry32), so every run draws the same samples. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** The exact nearest-rank percentile: the value at rank ⌈q × n⌉ of the sorted sample. */
const exactPercentile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!
}

const draw = (n: number, sample: (next: () => number) => number, seed = 7) => {
  const next = random(seed)
  return Array.from({ length: n }, () => sample(next))
}

const distributions: Record<string, ReadonlyArray<number>> = {
  "uniform 5–800 ms": draw(5000, (next) => 5 + next() * 795),
  // Response times are typically log-normal: a body around 120 ms with a long tail.
  "log-normal around 120 ms": draw(5000, (next) => {
    const gaussian = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next())
    return Math.exp(Math.log(120) + 0.6 * gaussian)
  }),
  "exponential, mean 300 ms": draw(5000, (next) => 1 - 300 * Math.log(1 - next())),
  // Two regions, one near and one far: the percentiles fall on either mode.
  "bimodal 20 ms and 900 ms": draw(5000, (next) => next() < 0.7 ? 18 + next() * 4 : 850 + next() * 100),
  "slow, 5–59 s": draw(2000, (next) => 5000 + next() * 54_000),
  "one value, 250 ms": Array.from({ length: 100 }, () => 250)
}

describe("ResponseTimeHistogram", () => {
  it("has buckets that tile 0 ms to infinity, eight per doubling from 1 ms", () => {
    expect(bucketBounds(0)).toEqual([0, 1])
    for (let i = 1; i < bucketCount; i++) expect(bucketBounds(i)[0]).toBeCloseTo(bucketBounds(i - 1)[1], 9)
    expect(bucketBounds(9)[0]).toBeCloseTo(2, 9)
    expect(bucketBounds(bucketCount - 2)[1]).toBeGreaterThanOrEqual(60_000)
    expect(bucketBounds(bucketCount - 1)[1]).toBe(Infinity)
    for (const ms of [0, 0.5, 1, 1.5, 2, 3, 100, 999.9, 59_999, 60_000, 3_600_000]) {
      const [low, high] = bucketBounds(bucketOf(ms))
      // A value on a bound may land in the bucket below through rounding of log2; never further.
      expect(ms).toBeGreaterThanOrEqual(low * (1 - 1e-9))
      expect(ms).toBeLessThanOrEqual(high * (1 + 1e-9))
    }
    expect(relativeError).toBeLessThan(0.045)
  })

  for (const [name, values] of Object.entries(distributions)) {
    it(`estimates p50, p95 and p99 of ${name} within the stated relative error`, () => {
      const histogram = fromDurations(values)
      expect(histogram.count).toBe(values.length)
      for (const q of [0.5, 0.9, 0.95, 0.99, 1]) {
        const exact = exactPercentile(values, q)
        const estimate = percentile(histogram, q)!
        expect(Math.abs(estimate - exact) / exact).toBeLessThanOrEqual(relativeError + 1e-12)
      }
      expect(mean(histogram)).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 6)
    })
  }

  it("keeps values under 1 ms within 1 ms, and an empty histogram has no percentile", () => {
    const histogram = fromDurations([0.1, 0.2, 0.3, 0.9])
    expect(Math.abs(percentile(histogram, 0.5)! - 0.2)).toBeLessThan(1)
    expect(percentile(histogram, 1)).toBeLessThanOrEqual(0.9)
    expect(percentile(empty, 0.5)).toBeNull()
    expect(mean(empty)).toBeNull()
  })

  it("merges to the histogram of all the values together, whatever the grouping", () => {
    const a = distributions["log-normal around 120 ms"]!
    const b = distributions["bimodal 20 ms and 900 ms"]!
    const c = distributions["slow, 5–59 s"]!
    const together = fromDurations([...a, ...b, ...c])
    const merged = merge(merge(fromDurations(a), fromDurations(b)), fromDurations(c))
    const otherWay = merge(fromDurations(c), merge(fromDurations(b), fromDurations(a)))
    for (const histogram of [merged, otherWay]) {
      expect(histogram.buckets).toEqual(together.buckets)
      expect(histogram.count).toBe(together.count)
      expect(histogram.minMs).toBe(together.minMs)
      expect(histogram.maxMs).toBe(together.maxMs)
      expect(histogram.sumMs).toBeCloseTo(together.sumMs, 3)
    }
    expect(merge(empty, together)).toBe(together)
    expect(merge(together, empty)).toBe(together)
    // The merged percentiles are still within the error of the exact ones of the whole.
    const all = [...a, ...b, ...c]
    for (const q of [0.5, 0.95, 0.99]) {
      const exact = exactPercentile(all, q)
      expect(Math.abs(percentile(merged, q)! - exact) / exact).toBeLessThanOrEqual(relativeError + 1e-12)
    }
  })

  it("stores no trailing empty buckets", () => {
    const histogram = fromDurations([10, 12])
    expect(histogram.buckets).toHaveLength(bucketOf(12) + 1)
    expect(histogram.buckets.at(-1)).toBeGreaterThan(0)
    expect(merge(histogram, fromDurations([3])).buckets).toHaveLength(bucketOf(12) + 1)
  })
})
