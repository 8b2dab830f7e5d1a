/**
 * A fresh PostgreSQL database per test layer on the machine's server (TEST_DATABASE_URL,
 * default postgres://postgres@127.0.0.1:5432/postgres), dropped afterwards, so suites never
 * see each other's data. It is handed to the app as DATABASE_URL through a ConfigProvider.
 */
import { randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { Reactivity } from "@effect/experimental"
import { PgClient } from "@effect/sql-pg"
import { ConfigProvider, Context, Effect, Layer, Redacted } from "effect"

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
export class TestDatabaseUrl extends Context.Tag("test/TestDatabaseUrl")<TestDatabaseUrl, string>() {}

/** Configuration for the app under test: a fresh database plus the given variables. */
export const testConfig = (variables: Record<string, string> = {}) =>
  Layer.unwrapScoped(
    Effect.map(freshDatabaseUrl, ({ url }) =>
      Layer.merge(
        Layer.setConfigProvider(ConfigProvider.fromJson({ DATABASE_URL: url, ...variables })),
        Layer.succeed(TestDatabaseUrl, url)
      ))
  )

/** Configuration for the embedded default (no DATABASE_URL): PGlite under a fresh directory, removed afterwards. */
export const embeddedConfig = (variables: Record<string, string> = {}) =>
  Layer.unwrapScoped(
    Effect.acquireRelease(
      Effect.promise(() => mkdtemp(join(tmpdir(), "sps-embedded-"))),
      (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
    ).pipe(Effect.map((dir) => Layer.setConfigProvider(ConfigProvider.fromJson({ DATA_DIR: dir, ...variables }))))
  )
