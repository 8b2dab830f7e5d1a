/**
 * The `postgres` check against the machine's PostgreSQL (127.0.0.1:5432, which trusts loopback:
 * the refusals tested there are a role that may not log in and one that does not exist; roles
 * made for the test are dropped after), and against a cluster of the test's own (initdb, a free
 * loopback port) whose pg_hba.conf asks every role but postgres for a SCRAM password, where a
 * wrong or missing password is refused. Loaded through runCheck, as a probe loads it.
 */
import { randomBytes } from "node:crypto"
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import pg from "pg"

import { runCheck } from "../../probes/checks/runCheck.js"
import type { CheckDefinition } from "../../src/domain/CheckJob.js"
import { parseAddressList } from "../../src/domain/NetworkAddress.js"
import { outboundGuard } from "../../src/runtime/OutboundGuard.js"
import { makeClusters } from "../support/PostgresCluster.js"
import { closedPort } from "../support/Servers.js"

const job = (url: string, password: string | null = null): CheckDefinition => ({
  monitorId: "m",
  type: "postgres",
  url,
  timeoutMs: 5000,
  expectedStatusCode: 200,
  intervalSeconds: 60,
  password
})

/** A role that logs in with a password and one that may not log in; both dropped when the test ends. */
const roles = Effect.acquireRelease(
  Effect.promise(async () => {
    const admin = new pg.Client({ host: "127.0.0.1", port: 5432, user: "postgres", database: "postgres" })
    await admin.connect()
    const suffix = randomBytes(4).toString("hex")
    const login = `e44_check_${suffix}`
    const noLogin = `e44_nologin_${suffix}`
    const password = `pw-${randomBytes(8).toString("hex")}`
    await admin.query(`create role ${login} login password '${password}'`)
    await admin.query(`create role ${noLogin} nologin`)
    return { admin, login, noLogin, password }
  }),
  ({ admin, login, noLogin }) =>
    Effect.promise(async () => {
      await admin.query(`drop role if exists ${login}`)
      await admin.query(`drop role if exists ${noLogin}`)
      await admin.end()
    })
)

/** A cluster that asks `checker` for its SCRAM password (postgres itself is trusted, to make the role). */
const passwordCluster = Effect.acquireRelease(
  Effect.promise(async () => {
    const dir = mkdtempSync(join(tmpdir(), "e44-pg-hba-"))
    // The server runs as postgres (under root), which must read the file.
    chmodSync(dir, 0o755)
    const hba = join(dir, "pg_hba.conf")
    writeFileSync(
      hba,
      "local all all trust\nhost all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n"
    )
    chmodSync(hba, 0o644)
    const clusters = await makeClusters()
    const primary = await clusters.primary("scram", { hba_file: hba, password_encryption: "scram-sha-256" })
    const password = `pw-${randomBytes(8).toString("hex")}`
    const admin = new pg.Client({ connectionString: primary.url() })
    await admin.connect()
    await admin.query(`create role checker login password '${password}'`)
    await admin.end()
    return { clusters, dir, port: primary.port, password }
  }),
  ({ clusters, dir }) =>
    Effect.promise(async () => {
      await clusters.remove()
      rmSync(dir, { recursive: true, force: true })
    })
)

describe("postgres check", () => {
  it.live("logs in with SCRAM where the server asks for a password; a wrong or missing one fails", () =>
    Effect.gen(function*() {
      const { password, port } = yield* passwordCluster
      const url = `postgres://checker@127.0.0.1:${port}/postgres`
      expect(yield* runCheck(job(url, password))).toMatchObject({ ok: true, error: null })
      const wrong = yield* runCheck(job(url, "not-the-password"))
      expect(wrong).toMatchObject({ ok: false, error: "authentication failed" })
      const missing = yield* runCheck(job(url))
      expect(missing).toMatchObject({ ok: false, error: "authentication failed: the server asks for a password" })
    }))

  it.live("passes on SELECT 1 as a role with its password, and as postgres by default", () =>
    Effect.gen(function*() {
      const { login, password } = yield* roles
      const asRole = yield* runCheck(job(`postgres://${login}@127.0.0.1:5432/postgres`, password))
      expect(asRole).toMatchObject({ ok: true, error: null, statusCode: null })
      const byDefault = yield* runCheck(job("postgres://localhost"))
      expect(byDefault).toMatchObject({ ok: true, error: null })
      expect(byDefault.timings.dnsMs).toBeGreaterThanOrEqual(0)
    }))

  it.live("fails in fixed words: a role that may not log in, an unknown role, database, closed port", () =>
    Effect.gen(function*() {
      const { noLogin, password } = yield* roles
      const refused = yield* runCheck(job(`postgres://${noLogin}@127.0.0.1/postgres`, password))
      expect(refused).toMatchObject({
        ok: false,
        error: "authentication failed (no such role, or pg_hba.conf refuses it)"
      })
      const unknown = yield* runCheck(job(`postgres://e44_nobody_${randomBytes(4).toString("hex")}@127.0.0.1/postgres`))
      expect(unknown.error).toBe("authentication failed (no such role, or pg_hba.conf refuses it)")
      const database = yield* runCheck(
        job(`postgres://postgres@127.0.0.1/e44_missing_${randomBytes(4).toString("hex")}`)
      )
      expect(database).toMatchObject({ ok: false, error: "database does not exist" })
      const port = yield* closedPort
      const closed = yield* runCheck(job(`postgres://127.0.0.1:${port}`, password))
      expect(closed).toMatchObject({ ok: false, error: `connection refused by 127.0.0.1:${port}` })
    }))

  it.live("never connects to an address of OUTBOUND_DENY", () =>
    Effect.gen(function*() {
      const outbound = outboundGuard(Result.getOrThrow(parseAddressList("127.0.0.1/32")))
      const outcome = yield* runCheck(job("postgres://localhost:5432"), { outbound })
      expect(outcome.ok).toBe(false)
      expect(outcome.error).toContain("refused by OUTBOUND_DENY")
    }))
})
