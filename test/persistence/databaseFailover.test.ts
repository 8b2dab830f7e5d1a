/**
 * The service's SQL client following a primary that moves (DatabaseHosts), on real servers of
 * the test's own: a primary and a synchronous standby made with `initdb` and `pg_basebackup -R`.
 * The primary is SIGKILLed and the standby promoted: writes answer 503 (never a defect, also for
 * a transaction under way) until the standby takes writes, then land there, with every
 * acknowledged row kept. Then a server
 * fenced read-only (`default_transaction_read_only`, reloaded) has its connections dropped, and
 * the next write goes to the server that takes writes.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Cause, ConfigProvider, Effect, Exit, Fiber, Layer } from "effect"
import pg from "pg"

import { ServiceUnavailable } from "../../src/domain/Errors.js"
import { DatabaseClient } from "../../src/persistence/Database.js"
import { orUnavailable } from "../../src/persistence/DatabaseErrors.js"
import { RetryingSqlClient } from "../../src/persistence/RetryingSqlClient.js"
import { type Cluster, type Clusters, makeClusters } from "../support/PostgresCluster.js"

let clusters: Clusters
let a: Cluster
let b: Cluster

beforeAll(async () => {
  clusters = await makeClusters()
  // Given on the command line, so the clone does not inherit it: once promoted, B waits for no one.
  a = await clusters.primary("a", { synchronous_standby_names: "*" })
  b = await clusters.standby("b", a)
}, 60_000)

afterAll(() => clusters?.remove(), 30_000)

const client = (hosts: ReadonlyArray<Cluster>) =>
  DatabaseClient.pipe(
    Layer.provide(Layer.succeed(
      ConfigProvider.ConfigProvider,
      ConfigProvider.fromUnknown({
        DATABASE_URL: `postgres://postgres@${
          hosts.map((cluster) => `127.0.0.1:${cluster.port}`).join(",")
        }/postgres?target_session_attrs=read-write`
      })
    ))
  )

/** A query on one server, directly. */
const direct = async (cluster: Cluster, text: string) => {
  const sql = new pg.Client({ connectionString: cluster.url() })
  await sql.connect()
  try {
    return (await sql.query(text)).rows
  } finally {
    await sql.end()
  }
}

/** Tries `write` every 100 ms until it succeeds; the failures must all be 503s. */
const untilWritten = <A, E, R>(write: Effect.Effect<A, E, R>, limitMs: number) =>
  Effect.gen(function*() {
    const startedAt = Date.now()
    const failures: Array<unknown> = []
    while (Date.now() - startedAt < limitMs) {
      const exit = yield* Effect.exit(orUnavailable(write))
      if (Exit.isSuccess(exit)) return { afterMs: Date.now() - startedAt, failures }
      failures.push(Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail" ? exit.cause.reasons[0].error : exit)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
    }
    throw new Error(`no write succeeded within ${limitMs} ms: ${failures.slice(-3).map(String).join("; ")}`)
  })

describe("a DATABASE_URL with several hosts", () => {
  it(
    "writes to the promoted standby after the primary is SIGKILLed, losing no acknowledged row",
    () =>
      Effect.gen(function*() {
        const sql = yield* RetryingSqlClient
        yield* sql`create table failover (n int primary key, port int not null default current_setting('port')::int)`
        const acknowledged: Array<number> = []
        for (let n = 1; n <= 50; n++) {
          yield* sql`insert into failover (n) values (${n})`
          acknowledged.push(n)
        }
        // A transaction under way when the server dies, as the service writes (a savepoint inside, the
        // errors turned into 503s as they come): a 503, never the defect of its failed ROLLBACK.
        const inFlight = yield* sql.withTransaction(Effect.gen(function*() {
          yield* orUnavailable(sql`insert into failover (n) values (0)`)
          yield* sql.withTransaction(orUnavailable(sql`select pg_sleep(10)`))
        })).pipe(orUnavailable, Effect.exit, Effect.forkChild)
        yield* Effect.sleep("300 millis")
        yield* Effect.promise(() => a.kill())
        const interrupted = yield* Fiber.join(inFlight)
        expect(Exit.isFailure(interrupted) && Cause.hasDies(interrupted.cause), String(interrupted)).toBe(false)
        expect(Exit.isFailure(interrupted) && Cause.squash(interrupted.cause)).toBeInstanceOf(ServiceUnavailable)
        // The standby is promoted a second later, as a failover manager would; meanwhile writes answer 503.
        const promoted = Effect.runPromise(
          Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1_000)).then(() => b.promote()))
        )
        let n = 51
        const back = yield* untilWritten(Effect.suspend(() => sql`insert into failover (n) values (${n})`), 20_000)
        acknowledged.push(n++)
        yield* Effect.promise(() => promoted)
        expect(back.failures.length).toBeGreaterThan(0)
        for (const failure of back.failures) expect(failure).toBeInstanceOf(ServiceUnavailable)
        expect(back.afterMs).toBeLessThan(15_000)

        const rows = yield* sql<{ n: number; port: number }>`select n, port from failover order by n`
        expect(rows.map((row) => row.n)).toEqual(acknowledged)
        expect(rows.at(-1)!.port).toBe(b.port)
      }).pipe(Effect.provide(client([a, b])), Effect.runPromise),
    60_000
  )

  it("drops the connections of a server that turns read-only, and writes where writes are taken", async () => {
    // B is the primary now; C another one (a split brain, for the test), listed after it.
    const c = await clusters.primary("c")
    for (const cluster of [b, c]) {
      await direct(
        cluster,
        "create table fenced (n int primary key, port int not null default current_setting('port')::int)"
      )
    }
    await Effect.gen(function*() {
      const sql = yield* RetryingSqlClient
      const write = (n: number) => sql<{ port: number }>`insert into fenced (n) values (${n}) returning port`
      // A few connections open to B, all of which must go.
      yield* Effect.all([1, 2, 3, 4].map(write), { concurrency: "unbounded" })
      expect((yield* write(5))[0]!.port).toBe(b.port)

      yield* Effect.promise(() => direct(b, "alter system set default_transaction_read_only = on"))
      yield* Effect.promise(() => direct(b, "select pg_reload_conf()"))
      yield* Effect.sleep("300 millis")
      const back = yield* untilWritten(write(6), 10_000)
      // The write that met the read-only server answered 503 and dropped B's connections; the next found C.
      expect(back.failures.length).toBeLessThanOrEqual(1)
      for (const failure of back.failures) expect(failure).toBeInstanceOf(ServiceUnavailable)
      for (let n = 7; n <= 10; n++) expect((yield* write(n))[0]!.port).toBe(c.port)
    }).pipe(Effect.provide(client([b, c])), Effect.runPromise)
  }, 60_000)
})
