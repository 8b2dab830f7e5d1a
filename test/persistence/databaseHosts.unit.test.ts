/**
 * DATABASE_URL with several hosts, read as libpq reads it (DatabaseHosts), without a server: the
 * host list and its ports, target_session_attrs, a clear refusal of what the service cannot use,
 * the one-host URL left for @effect/sql-pg, and the watch for a server that turns read-only.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Result } from "effect"

import { DatabaseClient } from "../../src/persistence/Database.js"
import { parseDatabaseUrl, readOnlyWatcher } from "../../src/persistence/DatabaseHosts.js"

const parsed = (url: string) => Result.getOrThrow(parseDatabaseUrl(url))
const refusal = (url: string) => Result.match(parseDatabaseUrl(url), { onFailure: (m) => m, onSuccess: () => "" })

describe("parseDatabaseUrl", () => {
  it("reads a host list with ports and target_session_attrs, and leaves the rest in a one-host URL", () => {
    const target = parsed(
      "postgres://app:s%40cret@db-1:5433,db-2,[::1]:6432/status?target_session_attrs=read-write&application_name=x"
    )
    expect(target.hosts).toEqual([
      { host: "db-1", port: 5433 },
      { host: "db-2", port: 5432 },
      { host: "::1", port: 6432 }
    ])
    expect(target.targetSessionAttrs).toBe("read-write")
    expect(target.url).toBe("postgres://app:s%40cret@db-1:5433/status?application_name=x")
    expect(target.ssl).toBe(false)
  })

  it("reads a plain URL as one host, any session", () => {
    const target = parsed("postgresql://postgres@127.0.0.1:5432/postgres")
    expect(target.hosts).toEqual([{ host: "127.0.0.1", port: 5432 }])
    expect(target.targetSessionAttrs).toBe("any")
    expect(target.url).toBe("postgresql://postgres@127.0.0.1:5432/postgres")
  })

  it("reads host= and port= lists, one port for all or one each, and socket directories", () => {
    expect(parsed("postgres://u@/db?host=a,b&port=5433").hosts).toEqual([
      { host: "a", port: 5433 },
      { host: "b", port: 5433 }
    ])
    expect(parsed("postgres://u@/db?host=/run/pg,b&port=1,2&target_session_attrs=primary")).toMatchObject({
      hosts: [{ host: "/run/pg", port: 1 }, { host: "b", port: 2 }],
      targetSessionAttrs: "primary"
    })
    expect(parsed("postgres://u@%2Frun%2Fpg:5433,other/db").hosts[0]).toEqual({ host: "/run/pg", port: 5433 })
    expect(parsed("postgres://u@/db").hosts).toEqual([{ host: "localhost", port: 5432 }])
  })

  it("keeps sslmode for the server it connects to", () => {
    expect(parsed("postgres://u@a,b/db?sslmode=require").ssl).toBe(true)
    expect(parsed("postgres://u@a,b/db?sslmode=prefer").ssl).toBe("prefer")
    expect(parsed("postgres://u@a,b/db?sslmode=require").url).toBe("postgres://u@a:5432/db?sslmode=require")
  })

  it("refuses what it cannot use, saying what, never repeating the password", () => {
    expect(refusal("mysql://u@a/db")).toMatch(/postgres:\/\//)
    expect(refusal("postgres://u:hunter2@a,,b/db")).toMatch(/empty host/)
    expect(refusal("postgres://u:hunter2@a:0,b/db")).toMatch(/invalid port "0" for a/)
    expect(refusal("postgres://u:hunter2@a:5432x/db")).toMatch(/invalid port/)
    expect(refusal("postgres://u@a,b/db?target_session_attrs=read-only")).toMatch(
      /target_session_attrs must be any, read-write or primary, not "read-only"/
    )
    expect(refusal("postgres://u@a,b/db?target_session_attrs=any&target_session_attrs=primary")).toMatch(
      /more than once/
    )
    expect(refusal("postgres://u@/db?host=a,b,c&port=1,2")).toMatch(/2 ports for 3 hosts/)
    expect(refusal("postgres://u@a,b/db?sslmode=sometimes")).toMatch(/sslmode/)
    for (const url of ["postgres://u:hunter2@a:0,b/db", "postgres://u:hunter2@a,,b/db"]) {
      expect(refusal(url)).not.toContain("hunter2")
    }
  })

  it.effect("a refused DATABASE_URL stops the start with the reason", () =>
    Effect.gen(function*() {
      const exit = yield* Layer.build(DatabaseClient).pipe(
        Effect.scoped,
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromUnknown({ DATABASE_URL: "postgres://u@a,b/db?target_session_attrs=standby" })
        ),
        Effect.exit
      )
      expect(String(exit)).toMatch(/DATABASE_URL.*target_session_attrs must be any, read-write or primary/)
    }))
})

/** A backend message: its type, its length (counting itself) and its body. */
const message = (type: string, body: Buffer) => {
  const header = Buffer.alloc(5)
  header.write(type, 0, "latin1")
  header.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([header, body])
}
const parameterStatus = (name: string, value: string) => message("S", Buffer.from(`${name}\0${value}\0`))
const errorResponse = (code: string) => message("E", Buffer.from(`SERROR\0C${code}\0Mcannot execute INSERT\0\0`))
const dataRow = (size: number) => message("D", Buffer.alloc(size, 0x41))

describe("readOnlyWatcher", () => {
  it("notices a read-only transaction error or a server turning read-only, across chunk boundaries", () => {
    const stream = Buffer.concat([
      parameterStatus("in_hot_standby", "off"),
      parameterStatus("default_transaction_read_only", "off"),
      dataRow(100_000),
      errorResponse("23505")
    ])
    for (const split of [1, 3, 7, 64, 5_000, stream.length]) {
      const watch = readOnlyWatcher("read-write")
      let said = false
      for (let at = 0; at < stream.length; at += split) said = watch(stream.subarray(at, at + split)) || said
      expect(said, `in chunks of ${split}`).toBe(false)
      const bad = errorResponse("25006")
      expect(watch(bad.subarray(0, 4)) || watch(bad.subarray(4))).toBe(true)
    }
    expect(readOnlyWatcher("read-write")(parameterStatus("default_transaction_read_only", "on"))).toBe(true)
    expect(readOnlyWatcher("read-write")(parameterStatus("in_hot_standby", "on"))).toBe(true)
  })

  it("for target_session_attrs=primary, minds only a standby", () => {
    const watch = readOnlyWatcher("primary")
    expect(watch(parameterStatus("default_transaction_read_only", "on"))).toBe(false)
    expect(watch(errorResponse("25006"))).toBe(false)
    expect(watch(parameterStatus("in_hot_standby", "on"))).toBe(true)
  })
})
