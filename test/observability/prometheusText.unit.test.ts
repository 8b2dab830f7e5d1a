/**
 * The tests' Prometheus text reader: a histogram without labels whose `_count` and `_sum` come
 * before its buckets (the OpenTelemetry serializer's order, valid Prometheus text) reads as the
 * same histogram written buckets first, which is all parse-prometheus-text-format reads.
 */
import parse from "parse-prometheus-text-format"
import { expect, it } from "vitest"

import { bucketsFirst, parseMetrics } from "../support/Prometheus.js"

const help = "# HELP lag_seconds Lag\n# TYPE lag_seconds histogram\n"
const buckets = "lag_seconds_bucket{le=\"1\"} 0\nlag_seconds_bucket{le=\"+Inf\"} 1\n"
const totals = "lag_seconds_sum 2\nlag_seconds_count 1\n"
const counter = "# HELP runs_total Runs\n# TYPE runs_total counter\nruns_total 4\n"

it("reads a histogram whose count and sum come first as the one written buckets first", () => {
  const otelOrder = `${help}lag_seconds_count 1\nlag_seconds_sum 2\n${buckets}${counter}`
  // The parser's bug (yunyu/parse-prometheus-text-format#14) the reader works around.
  expect(() => parse(otelOrder)).toThrow()
  expect(bucketsFirst(otelOrder)).toBe(`${help}${buckets}${totals}${counter}`)
  expect(parseMetrics(otelOrder)).toEqual(parse(`${help}${buckets}${totals}${counter}`))
  expect(parseMetrics(otelOrder)[0]!.metrics).toEqual([
    { buckets: { "1": "0", "+Inf": "1" }, count: "1", sum: "2" }
  ])
})

it("keeps each labelled series' lines together, buckets first, and leaves other families alone", () => {
  const text = [
    "# TYPE d_seconds histogram",
    "d_seconds_count{route=\"a\"} 1",
    "d_seconds_sum{route=\"a\"} 0.5",
    "d_seconds_bucket{route=\"a\",le=\"+Inf\"} 1",
    "d_seconds_count{route=\"b\"} 2",
    "d_seconds_sum{route=\"b\"} 1",
    "d_seconds_bucket{route=\"b\",le=\"+Inf\"} 2",
    "# TYPE x gauge",
    "x_count 3",
    ""
  ].join("\n")
  expect(bucketsFirst(text).split("\n")).toEqual([
    "# TYPE d_seconds histogram",
    "d_seconds_bucket{route=\"a\",le=\"+Inf\"} 1",
    "d_seconds_sum{route=\"a\"} 0.5",
    "d_seconds_count{route=\"a\"} 1",
    "d_seconds_bucket{route=\"b\",le=\"+Inf\"} 2",
    "d_seconds_sum{route=\"b\"} 1",
    "d_seconds_count{route=\"b\"} 2",
    "# TYPE x gauge",
    "x_count 3",
    ""
  ])
})
