/**
 * Microbenchmark of decoding a results stream's entries in process (`npx tsx
 * test/bench/resultDecode.ts`): BENCH_RESULTS (300,000) distinct results as probes send them
 * (JSON.stringify of a CheckResult; 2 % failures with an error, a few with a traceparent), decoded
 * by the schema alone (Schema.fromJsonString over the union of result, miss and heartbeat: ingest's
 * decoder before the hand-written one), by ingest's decoder (`decodeResultEntry`), and by
 * JSON.parse alone (the floor). BENCH_ROUNDS (5) rounds, alternated, so load drift hits both;
 * it prints µs per result of each round and the median, with the load average. It measures and
 * prints; it never fails on a number.
 */
import { loadavg } from "node:os"

import { Schema } from "effect"

import { CheckResult, jobIdOf, MissedCheck } from "../../src/domain/CheckJob.js"
import { ProbeHeartbeat } from "../../src/domain/ProbeHeartbeat.js"
import { decodeResultEntry } from "../../src/queue/redis/RedisJobTransport.js"

const count = Number(process.env.BENCH_RESULTS ?? 300_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)

const base = 1_790_000_000_000
const texts = Array.from({ length: count }, (_, i) => {
  const monitorId = `mon_${(i % 10_000).toString(36).padStart(8, "0")}${i}`
  const scheduledAt = base + Math.floor(i / 10_000) * 60_000
  const failed = i % 50 === 0
  return JSON.stringify(
    CheckResult.make({
      jobId: jobIdOf(monitorId, scheduledAt),
      monitorId,
      region: i % 2 === 0 ? "e2e-a" : "e2e-b",
      probe: `probe-host-${i % 2}-12345`,
      scheduledAt,
      checkedAt: scheduledAt + (i % 400),
      ok: !failed,
      durationMs: 3 + (i % 97) / 7,
      timings: { dnsMs: null, connectMs: 0.5 + (i % 13) / 10, tlsMs: null, firstByteMs: 1 + (i % 31) / 9 },
      statusCode: failed ? 503 : 200,
      error: failed ? "expected status 200, got 503 Service Unavailable" : null,
      sslDaysLeft: null,
      ...(i % 100 === 1 ? { traceparent: `00-${"ab".repeat(16)}-${"cd".repeat(8)}-01` } : {})
    }, { disableChecks: true })
  )
})

const schemaDecode = Schema.decodeUnknownOption(
  Schema.fromJsonString(Schema.Union([CheckResult, MissedCheck, ProbeHeartbeat]))
)

const decoders: ReadonlyArray<readonly [string, (text: string) => unknown]> = [
  ["schema alone (before)", (text) => {
    const option = schemaDecode(text)
    return option._tag === "Some" ? option.value : undefined
  }],
  ["decodeResultEntry (after)", decodeResultEntry],
  ["JSON.parse alone", (text) => JSON.parse(text)]
]

// Every decoder must accept every result, or the figures mean nothing.
for (const [name, decode] of decoders) {
  if (texts.some((text) => decode(text) === undefined)) throw new Error(`${name} refused a result`)
}

const load = () => loadavg().map((n) => n.toFixed(2)).join(" ")
console.log(
  `${count} results of ${
    Math.round(texts.reduce((n, t) => n + t.length, 0) / count)
  } characters on average, Node ${process.version}; load average ${load()}`
)
const perResult = new Map<string, Array<number>>(decoders.map(([name]) => [name, []]))
let sink = 0
for (let round = 0; round < rounds; round++) {
  for (const [name, decode] of decoders) {
    const start = process.hrtime.bigint()
    for (const text of texts) {
      if (decode(text) !== undefined) sink++
    }
    perResult.get(name)!.push(Number(process.hrtime.bigint() - start) / 1000 / count)
  }
}
const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
for (const [name, values] of perResult) {
  console.log(
    `${name.padEnd(28)} median ${median(values).toFixed(2)} µs/result; rounds ${
      values.map((v) => v.toFixed(2)).join(", ")
    }`
  )
}
console.log(`load average ${load()} (${sink} decoded)`)
