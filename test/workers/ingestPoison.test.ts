/**
 * One report PostgreSQL refuses cannot hold up the others: the ingest role stores a batch that
 * fails in halves, down to single reports, and acknowledges (and logs) the one that still
 * fails. Here PostgreSQL refuses the reports of one probe (a CHECK constraint the test adds to
 * its own database); the batch comes from two regions' streams at once, as ingest reads them.
 */
import { expect, it } from "@effect/vitest"
import { Clock, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import type { Redis } from "ioredis"

import { CheckResult } from "../../src/domain/CheckJob.js"
import { slotAt } from "../../src/domain/Slots.js"
import { JobTransport } from "../../src/queue/JobTransport.js"
import * as RedisJobTransport from "../../src/queue/redis/RedisJobTransport.js"
import { IngestConsumer } from "../../src/workers/IngestConsumer.js"
import { checkResult } from "../support/CheckResults.js"
import { eventually } from "../support/Eventually.js"
import { redisPrefix, redisUrl } from "../support/Redis.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

const minute = 60_000

/** The test's Redis prefix and a raw client, to look at the pending lists. */
class RawRedis
  extends Context.Service<RawRedis, { readonly prefix: string; readonly redis: Redis }>()("test/RawRedis")
{}

const Prefixed = Layer.unwrap(
  Effect.map(
    redisPrefix,
    ({ prefix, redis }) =>
      Layer.merge(RedisJobTransport.layer({ url: redisUrl, prefix }), Layer.succeed(RawRedis, { prefix, redis }))
  )
)

const Stack = IngestConsumer.pipe(Layer.provideMerge(Prefixed), Layer.provideMerge(TestServer()))

it.layer(Stack, { timeout: "60 seconds" })("ingest of a batch PostgreSQL refuses", (it) => {
  it.effect("stores every other report of the batch and acknowledges the one it cannot store", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const component = yield* client.components.create({ payload: { name: "Poisoned batch" } })
      const monitor = yield* client.monitors.create({
        payload: { componentId: component.id, type: "http", url: "https://example.com" }
      })
      yield* sql`alter table check_results add constraint refuses_poison check (probe <> 'poisoned') not valid`

      // Seven runs back, since the monitor exists and within the bound ingest admits results in (7 minutes).
      yield* TestClock.adjust("7 minutes")
      const latest = slotAt(monitor.id, minute, yield* Clock.currentTimeMillis)
      const runs = Array.from({ length: 6 }, (_, i) => latest - i * minute)
      const good = runs.flatMap((
        at
      ) => [checkResult(monitor.id, "eu", at, true), checkResult(monitor.id, "us", at, false)])
      const earlier = latest - 6 * minute
      const poison = CheckResult.make({ ...checkResult(monitor.id, "eu", earlier, true), probe: "poisoned" })
      const transport = yield* JobTransport
      // The poison in the middle of its region's stream, with good reports on either side.
      yield* transport.publishResults([...good.slice(0, 5), poison, ...good.slice(5)])

      const stored = sql<{ region: string; scheduledAt: Date }>`
        select region, scheduled_at from check_results where monitor_id = ${monitor.id} order by region, scheduled_at`
      const rows = yield* eventually(stored, (list) => list.length === good.length, 20_000)
      expect(rows.map((row) => `${row.region} ${row.scheduledAt.getTime()}`)).toEqual(
        [...good].sort((a, b) => a.region.localeCompare(b.region) || a.scheduledAt - b.scheduledAt).map((r) =>
          `${r.region} ${r.scheduledAt}`
        )
      )

      // Nothing stays pending: the poison was acknowledged, never to come back.
      const { prefix, redis } = yield* RawRedis
      const pending = Effect.promise(() =>
        Promise.all(["eu", "us"].map((region) => redis.xpending(`${prefix}results:${region}`, "ingest")))
      ).pipe(Effect.map((replies) => replies.map((reply) => Number((reply as [number])[0]))))
      expect(yield* eventually(pending, (counts) => counts.every((n) => n === 0), 10_000)).toEqual([0, 0])
      const poisonRows = yield* sql<{ count: number }>`
        select count(*)::int as count from check_results where job_id = ${poison.jobId}`
      expect(poisonRows[0]!.count).toBe(0)
    }))
})
