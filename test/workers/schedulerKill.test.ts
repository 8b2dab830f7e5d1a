/**
 * The real entry point (`node --import tsx src/main.ts`, ROLES=scheduler) twice on one
 * database and a Redis of the test's own: the active scheduler is SIGKILLed (its PostgreSQL
 * session, and with it the advisory lock, dies with it) and the standby takes over within 10 s:
 * jobs keep arriving on the stream.
 */
import { randomUUID } from "node:crypto"

import { Effect, Exit, Scope } from "effect"
import { Redis } from "ioredis"
import pg from "pg"
import { afterAll, beforeAll, expect, it } from "vitest"

import { type Service, startService } from "../support/ChildProcess.js"
import { startOwnRedis } from "../support/RedisServer.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"

let scope: Scope.Closeable
let databaseUrl: string
let ownRedis: Awaited<ReturnType<typeof startOwnRedis>>
const children: Array<Service> = []

beforeAll(async () => {
  scope = Effect.runSync(Scope.make())
  databaseUrl = (await Effect.runPromise(Scope.provide(freshDatabaseUrl, scope))).url
  ownRedis = await startOwnRedis()
})

afterAll(async () => {
  for (const child of children) {
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill("SIGKILL")
  }
  await Promise.all(children.map((child) => child.exited))
  await ownRedis?.stop()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const prefix = `test:${randomUUID()}:`

/** `node --import tsx src/main.ts`, so a SIGKILL reaches the scheduler itself, not a wrapper. */
const startScheduler = (name: string) => {
  const service = startService("src/main.ts", {
    ROLES: "scheduler",
    DATABASE_URL: databaseUrl,
    REDIS_URL: ownRedis.url,
    REDIS_STREAM_PREFIX: prefix
  }, { directNode: true })
  children.push(service)
  return { name, service }
}

const until = async (what: string, condition: () => Promise<boolean> | boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`timed out waiting for ${what}\n${children.map((c) => c.output()).join("\n---\n")}`)
}

it("a standby scheduler process takes over within 10 s of the active one being SIGKILLed", async () => {
  const redis = new Redis(ownRedis.url)
  try {
    const first = startScheduler("first")
    await until("the first scheduler to be active", () => first.service.output().includes("Scheduler active"), 30_000)
    // Migrated by the first: the standby starts on a ready schema and waits for the lock.
    const second = startScheduler("second")

    // Ten monitors with a 10 s interval, spread over it: about a job a second.
    const db = new pg.Client({ connectionString: databaseUrl })
    await db.connect()
    await db.query(`insert into components (id, name) values ('c1', 'Watched')`)
    await db.query(`
      insert into monitors (component_id, type, url, interval_seconds, timeout_ms, failure_threshold)
      select 'c1', 'tcp', '127.0.0.1:9', 10, 1000, 1 from generate_series(1, 10)`)
    await db.end()

    // A region is known once its results stream exists (a probe's first heartbeat makes it).
    await redis.xgroup("CREATE", `${prefix}results:eu`, "ingest", "$", "MKSTREAM")
    const jobsKey = `${prefix}jobs:eu`
    await until("jobs from the active scheduler", async () => (await redis.xlen(jobsKey)) >= 10, 15_000)
    const [active, standby] = [first, second]
    expect(standby.service.output()).not.toContain("Scheduler active")

    active.service.child.kill("SIGKILL")
    await active.service.exited
    const killedAt = Date.now()
    // Jobs XADDed after the kill, by the standby (the stream entry id's time is when Redis took it).
    await until("a job published after the kill", async () => {
      const entries = await redis.xrange(jobsKey, String(killedAt + 1), "+", "COUNT", 1)
      return entries.length > 0
    }, 10_000)
    expect(Date.now() - killedAt).toBeLessThan(10_000)
    expect(standby.service.output()).toContain("Scheduler active with 10 monitors")
    // And it keeps publishing: more jobs over the next interval.
    const countAt = await redis.xlen(jobsKey)
    await until("the standby to keep publishing", async () => (await redis.xlen(jobsKey)) >= countAt + 5, 15_000)
  } finally {
    await redis.quit()
  }
}, 60_000)
