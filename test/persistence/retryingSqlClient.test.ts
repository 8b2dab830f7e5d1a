/**
 * `RetryingSqlClient` on the real PostgreSQL: a conflict (a deadlock or serialization failure,
 * raised by the server with its real SQLSTATE) runs a statement outside a transaction, or an
 * outermost transaction, again; a nested transaction is left to the outermost; other errors are
 * not retried; a conflict that outlasts the tries is a 503 (`orUnavailable`), never a defect. The
 * tries are counted with a sequence, which a rollback does not undo.
 */
import { expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"

import { Database } from "../../src/persistence/Database.js"
import { orUnavailable } from "../../src/persistence/DatabaseErrors.js"
import { maxTries, RetryingSqlClient } from "../../src/persistence/RetryingSqlClient.js"
import { testConfig } from "../support/TestDatabase.js"

/** A statement that fails with `state` until it has run `failures` times, then answers its try's number. */
const setUp = Effect.gen(function*() {
  const raw = yield* SqlClient.SqlClient
  yield* raw`create sequence if not exists tries`
  yield* raw.unsafe(`
    create or replace function conflict_until(failures int, state text) returns bigint language plpgsql as $$
    declare try bigint := nextval('tries');
    begin
      if try <= failures then raise exception 'conflict on try %', try using errcode = state; end if;
      return try;
    end $$`)
  yield* raw`select setval('tries', 1, false)`
  return yield* RetryingSqlClient
})

const tries = Effect.flatMap(SqlClient.SqlClient, (raw) => raw<{ last: string }>`select last_value as last from tries`)
  .pipe(Effect.map((rows) => Number(rows[0]!.last)))

it.layer(Database.pipe(Layer.provide(testConfig())))("RetryingSqlClient", (it) => {
  it.effect("runs a statement outside a transaction again after a deadlock", () =>
    Effect.gen(function*() {
      const sql = yield* setUp
      const rows = yield* sql<{ try: string }>`select conflict_until(2, '40P01') as try`
      expect(Number(rows[0]!.try)).toBe(3)
    }))

  it.effect("runs a whole transaction again, also when a caller inside turned the conflict into a defect", () =>
    Effect.gen(function*() {
      const sql = yield* setUp
      let bodies = 0
      const result = yield* sql.withTransaction(Effect.gen(function*() {
        bodies++
        yield* sql`create temporary table if not exists written (n int) on commit drop`
        yield* sql`insert into written values (${bodies})`
        // orUnavailable makes a conflict inside a transaction a defect: it still goes up to be retried.
        const rows = yield* orUnavailable(sql<{ try: string }>`select conflict_until(1, '40001') as try`)
        return { try: Number(rows[0]!.try), written: yield* sql<{ n: number }>`select n from written` }
      }))
      expect(bodies).toBe(2)
      // The first try's insert was rolled back with it.
      expect(result).toEqual({ try: 2, written: [{ n: 2 }] })
    }))

  it.effect("leaves a nested transaction's conflict to the outermost one", () =>
    Effect.gen(function*() {
      const sql = yield* setUp
      let outer = 0
      let inner = 0
      yield* sql.withTransaction(Effect.gen(function*() {
        outer++
        yield* sql.withTransaction(Effect.suspend(() => {
          inner++
          return sql`select conflict_until(1, '40P01')`
        }))
      }))
      expect({ outer, inner }).toEqual({ outer: 2, inner: 2 })
    }))

  it.effect("does not run other errors again", () =>
    Effect.gen(function*() {
      const sql = yield* setUp
      const exit = yield* Effect.exit(sql`select conflict_until(5, '23505')`)
      expect(Exit.isFailure(exit)).toBe(true)
      expect(yield* tries).toBe(1)
    }))

  it.effect(`answers a conflict that lasts ${maxTries} tries as a 503, in or outside a transaction`, () =>
    Effect.gen(function*() {
      const sql = yield* setUp
      const statement = yield* Effect.flip(orUnavailable(sql`select conflict_until(1000, '40P01')`))
      expect(statement._tag).toBe("ServiceUnavailable")
      expect(yield* tries).toBe(maxTries)
      const transaction = yield* Effect.flip(
        orUnavailable(sql.withTransaction(orUnavailable(sql`select conflict_until(1000, '40001')`)))
      )
      expect(transaction._tag).toBe("ServiceUnavailable")
      expect(yield* tries).toBe(2 * maxTries)
    }))
})
