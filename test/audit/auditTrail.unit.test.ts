/** What an entry's `changes` show (`changesBetween`), and AUDIT_RETENTION_DAYS. */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, DateTime, Effect, Exit, Option, Redacted } from "effect"

import { AppConfig, environment } from "../../src/runtime/Config.js"
import { changesBetween } from "../../src/services/audit/AuditTrail.js"

describe("changesBetween", () => {
  it("lists the fields that differ, a creation's and a deletion's all, without the timestamps of the row", () => {
    const at = DateTime.makeUnsafe("2030-01-01T00:00:00Z")
    const before = { name: "A", description: "", tags: ["x"], createdAt: at, updatedAt: at }
    const after = {
      name: "B",
      description: "",
      tags: ["x", "y"],
      createdAt: at,
      updatedAt: DateTime.add(at, { days: 1 })
    }
    expect(changesBetween(before, after)).toEqual({
      name: { before: "A", after: "B" },
      tags: { before: ["x"], after: ["x", "y"] }
    })
    expect(changesBetween(undefined, { name: "A", parent: null })).toEqual({ name: { before: null, after: "A" } })
    expect(changesBetween({ name: "A" }, undefined)).toEqual({ name: { before: "A", after: null } })
    expect(changesBetween({ name: "A" }, { name: "A" })).toEqual({})
  })

  it("shows timestamps as ISO 8601 and Options as their value", () => {
    expect(changesBetween({ ends: Option.none() }, { ends: Option.some(DateTime.makeUnsafe("2030-01-01T00:00:00Z")) }))
      .toEqual({ ends: { before: null, after: "2030-01-01T00:00:00.000Z" } })
    expect(changesBetween({ at: new Date("2030-01-01T00:00:00Z") }, undefined))
      .toEqual({ at: { before: "2030-01-01T00:00:00.000Z", after: null } })
  })

  it("never shows a secret: by name, at any depth, given or redacted, and still tells that it changed", () => {
    const changes = changesBetween(
      {
        secret: "s1",
        passwordHash: "h1",
        headers: { Authorization: "Bearer a" },
        unsubscribeToken: "t1",
        keyHash: new Uint8Array([1, 2]),
        nested: { webhookSecret: "n1", kept: 1 },
        credential: Redacted.make("r1"),
        apiToken: "custom",
        session: Redacted.make("same")
      },
      {
        secret: "s2",
        passwordHash: "h2",
        headers: { Authorization: "Bearer b" },
        unsubscribeToken: "t2",
        keyHash: new Uint8Array([3, 4]),
        nested: { webhookSecret: "n2", kept: 2 },
        credential: Redacted.make("r2"),
        apiToken: "custom",
        session: Redacted.make("same")
      },
      []
    )
    const text = JSON.stringify(changes)
    for (const value of ["s1", "s2", "h1", "h2", "Bearer", "t1", "t2", "n1", "n2", "r1", "r2", "AQI", "AwQ"]) {
      expect(text).not.toContain(value)
    }
    expect(changes).toEqual({
      secret: { before: "(secret)", after: "(secret)" },
      passwordHash: { before: "(secret)", after: "(secret)" },
      headers: { before: "(secret)", after: "(secret)" },
      unsubscribeToken: { before: "(secret)", after: "(secret)" },
      keyHash: { before: "(secret)", after: "(secret)" },
      credential: { before: "(secret)", after: "(secret)" },
      nested: { before: { webhookSecret: "(secret)", kept: 1 }, after: { webhookSecret: "(secret)", kept: 2 } }
    })
    // A redacted value in a field of any name is hidden too.
    expect(changesBetween({ note: [Redacted.make("a")] }, { note: [Redacted.make("b")] }))
      .toEqual({ note: { before: ["(secret)"], after: ["(secret)"] } })
    // Set where there was none, and removed.
    expect(changesBetween({ secret: null }, { secret: "new" })).toEqual({ secret: { before: null, after: "(secret)" } })
    expect(changesBetween({ password: "old" }, {})).toEqual({ password: { before: "(secret)", after: null } })
  })
})

describe("AUDIT_RETENTION_DAYS", () => {
  const read = (env: Record<string, string>) =>
    AppConfig.pipe(Effect.provideService(ConfigProvider.ConfigProvider, environment(env)))

  it.effect("is 365 by default, and 1 to 3650 when set; anything else stops the start", () =>
    Effect.gen(function*() {
      expect((yield* read({})).auditRetentionDays).toBe(365)
      expect((yield* read({ AUDIT_RETENTION_DAYS: "" })).auditRetentionDays).toBe(365)
      expect((yield* read({ AUDIT_RETENTION_DAYS: "1" })).auditRetentionDays).toBe(1)
      expect((yield* read({ AUDIT_RETENTION_DAYS: "3650" })).auditRetentionDays).toBe(3650)
      for (const value of ["0", "3651", "-5", "30.5", "a year"]) {
        const exit = yield* Effect.exit(read({ AUDIT_RETENTION_DAYS: value }))
        expect(Exit.isFailure(exit), value).toBe(true)
      }
      const refused = yield* Effect.flip(read({ AUDIT_RETENTION_DAYS: "0" }))
      expect(String(refused)).toContain("AUDIT_RETENTION_DAYS must be between 1 and 3650")
    }))
})
