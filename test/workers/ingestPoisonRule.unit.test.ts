/**
 * Which failures make ingest split a batch and drop the report PostgreSQL refuses
 * (IngestConsumer.isPoisoned): only PostgreSQL's own refusal of the data. A connection lost in
 * the middle of a batch once dropped a report that a sibling would have stored.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause } from "effect"
import { SqlError, UnknownError } from "effect/sql/SqlError"

import { databaseUnavailable } from "../../src/persistence/DatabaseErrors.js"
import { isPoisoned } from "../../src/workers/IngestConsumer.js"

const died = (cause: unknown) =>
  Cause.die(new SqlError({ reason: new UnknownError({ cause, message: "query failed" }) }))

describe("a poisoned batch", () => {
  it("is one PostgreSQL refused for its data: a data exception or a constraint violation", () => {
    expect(isPoisoned(died({ code: "22021", message: "invalid byte sequence for encoding \"UTF8\": 0x00" }))).toBe(true)
    expect(isPoisoned(died({ code: "22003", message: "value out of range" }))).toBe(true)
    expect(isPoisoned(died({ code: "23514", message: "violates check constraint" }))).toBe(true)
  })

  it("is never a lost connection, a rollback, a shutdown, a failure without SQLSTATE or the database away", () => {
    expect(isPoisoned(died(new Error("Connection terminated unexpectedly")))).toBe(false)
    expect(isPoisoned(died({ code: "ECONNRESET" }))).toBe(false)
    expect(isPoisoned(died({ code: "08006" }))).toBe(false)
    expect(isPoisoned(died({ code: "57P01" }))).toBe(false)
    expect(isPoisoned(died({ code: "40001" }))).toBe(false)
    expect(isPoisoned(Cause.die(new Error("a bug")))).toBe(false)
    expect(isPoisoned(Cause.fail(databaseUnavailable))).toBe(false)
    expect(isPoisoned(Cause.interrupt())).toBe(false)
  })
})
