/**
 * A fresh PostgreSQL database per test layer on the machine's server (TEST_DATABASE_URL,
 * default postgres://postgres@127.0.0.1:5432/postgres), dropped afterwards, so suites never
 * see each other's data. It is handed to the app as DATABASE_URL through a ConfigProvider.
 */
import { randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { PgClient } from "@effect/sql-pg"
import { ConfigProvider, Context, Effect, Layer, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"

export const adminUrl = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

const withAdmin = <A, E>(f: (sql: PgClient.PgClient) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(PgClient.make({ url: Redacted.make(adminUrl), maxConnections: 1 }), f)).pipe(
    Effect.provide(Reactivity.layer)
  )

/** Creates a database and returns its URL; drops it when the scope closes. */
export const freshDatabaseUrl = Effect.acquireRelease(
  Effect.gen(function*() {
    const name = `sps_test_${randomBytes(6).toString("hex")}`
    yield* withAdmin((sql) => sql.unsafe(`create database "${name}"`))
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    return { name, url: url.toString() }
  }),
  ({ name }) => withAdmin((sql) => sql.unsafe(`drop database if exists "${name}" with (force)`)).pipe(Effect.orDie)
).pipe(Effect.orDie)

/** The URL of the suite's database, for tests that inspect it directly. */
export class TestDatabaseUrl extends Context.Service<TestDatabaseUrl, string>()("test/TestDatabaseUrl") {}

/** Configuration for the app under test: a fresh database plus the given variables. */
export const testConfig = (variables: Record<string, string> = {}) =>
  Layer.unwrap(
    Effect.map(freshDatabaseUrl, ({ url }) =>
      Layer.merge(
        ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: url, ...variables })),
        Layer.succeed(TestDatabaseUrl, url)
      ))
  )

/** Configuration for the embedded default (no DATABASE_URL): PGlite under a fresh directory, removed afterwards. */
export const embeddedConfig = (variables: Record<string, string> = {}) =>
  Layer.unwrap(
    Effect.acquireRelease(
      Effect.promise(() => mkdtemp(join(tmpdir(), "sps-embedded-"))),
      (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
    ).pipe(Effect.map((dir) => ConfigProvider.layer(ConfigProvider.fromUnknown({ DATA_DIR: dir, ...variables }))))
  )
