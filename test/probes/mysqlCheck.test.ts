/**
 * The `mysql` check against the machine's MariaDB (127.0.0.1:3306): a user made for the test
 * with a password (dropped after), root with its empty password by default, a wrong password,
 * an unknown database, a closed port and OUTBOUND_DENY. Loaded through runCheck, as a probe
 * loads it.
 */
import { randomBytes } from "node:crypto"

import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import mysql from "mysql2/promise"

import { runCheck } from "../../probes/checks/runCheck.js"
import type { CheckDefinition } from "../../src/domain/CheckJob.js"
import { parseAddressList } from "../../src/domain/NetworkAddress.js"
import { outboundGuard } from "../../src/runtime/OutboundGuard.js"
import { closedPort } from "../support/Servers.js"

const job = (url: string, password: string | null = null): CheckDefinition => ({
  monitorId: "m",
  type: "mysql",
  url,
  timeoutMs: 5000,
  expectedStatusCode: 200,
  intervalSeconds: 60,
  password
})

/** A user of 127.0.0.1 with a password, allowed the `mysql` database; dropped when the test ends. */
const user = Effect.acquireRelease(
  Effect.promise(async () => {
    const admin = await mysql.createConnection({ host: "127.0.0.1", port: 3306, user: "root", password: "" })
    const name = `e44_check_${randomBytes(4).toString("hex")}`
    const password = `pw-${randomBytes(8).toString("hex")}`
    await admin.query(`create user '${name}'@'127.0.0.1' identified by '${password}'`)
    await admin.query(`grant select on mysql.db to '${name}'@'127.0.0.1'`)
    return { admin, name, password }
  }),
  ({ admin, name }) =>
    Effect.promise(async () => {
      await admin.query(`drop user if exists '${name}'@'127.0.0.1'`)
      await admin.end()
    })
)

describe("mysql check", () => {
  it.live("passes on SELECT 1 as a user with its password, and as root by default", () =>
    Effect.gen(function*() {
      const { name, password } = yield* user
      const asUser = yield* runCheck(job(`mysql://${name}@127.0.0.1:3306/mysql`, password))
      expect(asUser).toMatchObject({ ok: true, error: null, statusCode: null })
      const asRoot = yield* runCheck(job("mysql://127.0.0.1"))
      expect(asRoot).toMatchObject({ ok: true, error: null })
    }))

  it.live("fails in fixed words: wrong password, unknown database, closed port", () =>
    Effect.gen(function*() {
      const { name, password } = yield* user
      const wrong = yield* runCheck(job(`mysql://${name}@127.0.0.1:3306`, "not-the-password"))
      expect(wrong).toMatchObject({ ok: false, error: "authentication failed" })
      const database = yield* runCheck(job(`mysql://root@127.0.0.1/e44_missing_${randomBytes(4).toString("hex")}`))
      expect(database).toMatchObject({ ok: false, error: "database does not exist" })
      const denied = yield* runCheck(job(`mysql://${name}@127.0.0.1/information_schema_not`, password))
      expect(denied).toMatchObject({ ok: false, error: "the user may not open the database" })
      const port = yield* closedPort
      const closed = yield* runCheck(job(`mysql://127.0.0.1:${port}`, password))
      expect(closed).toMatchObject({ ok: false, error: `connection refused by 127.0.0.1:${port}` })
    }))

  it.live("never connects to an address of OUTBOUND_DENY", () =>
    Effect.gen(function*() {
      const outbound = outboundGuard(Result.getOrThrow(parseAddressList("127.0.0.1/32")))
      const outcome = yield* runCheck(job("mysql://127.0.0.1:3306"), { outbound })
      expect(outcome).toMatchObject({ ok: false, error: "connection to 127.0.0.1 refused by OUTBOUND_DENY" })
    }))
})
