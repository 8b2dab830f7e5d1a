/**
 * A monitor row written behind the API's back that is no valid check is logged by the scheduler
 * with the reason, but never with its header values or body: those hold credentials.
 */
import { expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { SqlClient } from "effect/sql"

import * as InProcessJobTransport from "../../src/queue/InProcessJobTransport.js"
import { JobTransport } from "../../src/queue/JobTransport.js"
import { CheckScheduler } from "../../src/workers/CheckScheduler.js"
import { eventually } from "../support/Eventually.js"
import { logAnnotations, replaceDefaultLogger } from "../support/Logs.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

/** Starts the real scheduler with its warnings captured, and waits (real time) for its first tick. */
const startScheduler = Effect.gen(function*() {
  const inner = yield* InProcessJobTransport.make()
  let ticks = 0
  const warnings: Array<{ readonly message: string; readonly monitorId: unknown; readonly error: unknown }> = []
  const transport = JobTransport.of({
    ...inner,
    publishRuns: (runs) => Effect.suspend(() => (ticks++, inner.publishRuns(runs)))
  })
  const capture = Logger.make((entry) => {
    const { logLevel, message } = entry
    if (LogLevel.isGreaterThanOrEqualTo(logLevel, "Warn")) {
      const annotations = logAnnotations(entry)
      warnings.push({
        message: String(Array.isArray(message) ? message[0] : message),
        monitorId: annotations["monitorId"],
        error: annotations["error"]
      })
    }
  })
  // Fresh: a scheduler of its own, never one the suite's layer has built already.
  yield* Layer.buildWithScope(
    Layer.fresh(CheckScheduler.pipe(
      Layer.provide(Layer.succeed(JobTransport, transport)),
      Layer.provide(replaceDefaultLogger(capture))
    )),
    yield* Effect.scope
  )
  yield* eventually(Effect.sync(() => ticks), (n) => n > 0, 20_000)
  return warnings
})

it.layer(TestServer(), { timeout: "60 seconds" })("check scheduler logs", (it) => {
  it.effect("a row that is no valid check is logged with the reason, without its header values or body", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const sql = yield* SqlClient.SqlClient
      const component = yield* client.components.create({ payload: { name: `Redacted ${Math.random()}` } })
      const insert = (headers: unknown, method: string, body: string | null) =>
        Effect.acquireRelease(
          sql<{ id: string }>`
            insert into monitors (component_id, type, url, interval_seconds, timeout_ms, expected_status_code,
                                  failure_threshold, method, headers, body)
            values (${component.id}, 'http', 'http://127.0.0.1:9/', 30, 1000, 200, 1, ${method},
                    ${JSON.stringify(headers)}::jsonb, ${body})
            returning id`.pipe(Effect.map(([row]) => row!.id)),
          (id) => sql`delete from monitors where id = ${id}`.pipe(Effect.orDie)
        )
      // Reads as a monitor, but a header value with a line break is no job: the job's rule names it.
      const lineBreak = yield* insert({ "X-Trace": "1", Authorization: "Bearer secret-one\r\nX-Evil: 1" }, "GET", null)
      // Does not even read as a monitor: a header value that is not a string.
      const unreadable = yield* insert({ Authorization: ["Bearer secret-two"] }, "GET", null)
      // A body longer than a job carries.
      const longBody = yield* insert(
        { Authorization: "Bearer secret-three" },
        "POST",
        `secret-four ${"x".repeat(70_000)}`
      )

      const warnings = yield* startScheduler
      const logged = (id: string) => warnings.filter((warning) => warning.monitorId === id)
      for (const [id, reason] of [[lineBreak, "Authorization"], [unreadable, "Authorization"], [longBody, "body"]]) {
        const [warning, ...more] = logged(id!)
        expect(more).toEqual([])
        expect(warning?.message).toBe("monitor is not a valid check; not scheduled")
        const error = String(warning?.error)
        // What is wrong, and where: the field is named, the value masked (v4's formatter leaves it out).
        expect(error).toContain(reason)
        expect(error).toMatch(/^Expected [^\n]+\n {2}at \["(?:headers|body)"\]/)
        expect(error).not.toMatch(/secret|x{100}/)
      }
    }))
})
