/**
 * Instances starting together on a fresh database: each builds its own `Database` layer (its
 * own pool, so its own connections) at the same moment. All of them start, and the schema is
 * the one a single instance makes alone: no migration ran twice, none was skipped.
 */
import { readdirSync } from "node:fs"

import { expect, it } from "@effect/vitest"
import { Cause, ConfigProvider, Context, Deferred, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"

import { Database } from "../../src/persistence/Database.js"
import { migrationsDirectory } from "../../src/persistence/Migrations.js"
import { minimumLogLevel } from "../support/Logs.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"

const instances = 5

/** What a database holds: every column, constraint and index, and the rows of every table. */
const schemaOf = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const columns = yield* sql<{ table: string; column: string; type: string; fallback: string | null }>`
    select table_name as table, column_name as column, data_type as type, column_default as fallback
    from information_schema.columns where table_schema = 'public' order by table_name, column_name`
  const constraints = yield* sql<{ table: string; definition: string }>`
    select conrelid::regclass::text as table, pg_get_constraintdef(oid) as definition
    from pg_constraint where connamespace = 'public'::regnamespace order by 1, 2`
  const indexes = yield* sql<{ definition: string }>`
    select indexdef as definition from pg_indexes where schemaname = 'public' order by indexdef`
  const tables = [...new Set(columns.map((c) => c.table))]
  const rows = yield* Effect.forEach(tables, (table) =>
    Effect.map(
      sql<{ count: number }>`select count(*)::int as count from ${sql(table)}`,
      ([row]) => [table, row!.count] as const
    ))
  return { columns, constraints, indexes, rows: Object.fromEntries(rows) }
})

/** Why an instance did not start, with the database's own error when there is one. */
const whyNot = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause) as { message?: unknown; cause?: { code?: unknown; message?: unknown } }
  return `${String(error.message)} (${String(error.cause?.code)}: ${String(error.cause?.message)})`
}

/** Starts one instance's database layer on `url` in `scope`: its Migrations run as the service's do. */
const startInstance = (url: string, scope: Scope.Scope) =>
  Layer.buildWithScope(
    Layer.fresh(Database.pipe(
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: url }))),
      Layer.provide(minimumLogLevel("Error"))
    )),
    scope
  )

it.effect(
  `${instances} instances starting together on a fresh database all start, and migrate it once`,
  () =>
    Effect.gen(function*() {
      // Every migration file, in order: what one instance applies to an empty database.
      const files = readdirSync(migrationsDirectory).filter((file) => /^\d+_.+\.sql$/.test(file)).sort()
      expect(files.length).toBeGreaterThan(10)

      // The reference: one instance alone on a database of its own.
      const alone = yield* freshDatabaseUrl
      const reference = yield* schemaOf.pipe(Effect.provide(yield* startInstance(alone.url, yield* Effect.scope)))
      expect(reference.columns.length).toBeGreaterThan(0)

      const shared = yield* freshDatabaseUrl
      const go = yield* Deferred.make<void>()
      const started = yield* Effect.forEach(
        Array.from({ length: instances }, (_, i) => i),
        () =>
          Effect.gen(function*() {
            yield* Deferred.await(go)
            return yield* startInstance(shared.url, yield* Effect.scope)
          }).pipe(Effect.exit),
        { concurrency: "unbounded" }
      ).pipe(Effect.forkChild)
      yield* Deferred.succeed(go, undefined)
      const outcomes = yield* Fiber.join(started)

      // Every instance started: none failed on a migration another one was applying.
      expect(outcomes.map((exit) => Exit.isSuccess(exit) ? "started" : whyNot(exit.cause))).toEqual(
        Array.from({ length: instances }, () => "started")
      )
      const contexts = outcomes.flatMap((exit) => Exit.isSuccess(exit) ? [exit.value] : [])
      // Each sees the schema one instance makes alone: tables, columns, constraints, indexes and seeded rows.
      for (const context of contexts) {
        expect(yield* schemaOf.pipe(Effect.provide(context))).toEqual(reference)
      }
      // And the migrations table names each file once.
      const sql = Context.get(contexts[0]!, SqlClient.SqlClient)
      const applied = yield* sql<{ migrationId: number; name: string }>`
      select migration_id, name from effect_sql_migrations order by migration_id`
      expect(applied.map(({ migrationId, name }) => `${String(migrationId).padStart(4, "0")}_${name}.sql`)).toEqual(
        files
      )
    }),
  60_000
)
