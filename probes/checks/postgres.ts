/**
 * The `postgres` check: connects to `postgres://[user@]host[:5432][/database]` with `pg` (the
 * user `postgres` and the database of the user's name when the URL names none), logs in with the
 * monitor's password, runs `SELECT 1` and passes when it answers. The host is resolved through
 * OUTBOUND_DENY first and `pg` connects to the address. `pg` is loaded only when a postgres job
 * arrives: this module is a chunk of its own in the probe bundle.
 */
import type { Socket } from "node:net"

import { Effect } from "effect"
import pg from "pg"

import type { CheckOutcome } from "../../src/domain/CheckJob.js"
import {
  capReceived,
  connectionError,
  type ConversationOptions,
  failed,
  libraryCheck,
  parseServiceTarget
} from "./conversation.js"

export interface PostgresCheck {
  readonly url: string
  readonly timeoutMs: number
  readonly password?: string | null | undefined
}

/** SQLSTATEs a check meets, in fixed words; any other is named by its code (a server's text may quote anything). */
const sqlStates: Record<string, string> = {
  "28P01": "authentication failed",
  "28000": "authentication failed (no such role, or pg_hba.conf refuses it)",
  "3D000": "database does not exist",
  "53300": "too many connections",
  "57P03": "the server is not accepting connections yet"
}

const describe = (error: Error & { code?: string | undefined }, host: string, port: number) => {
  if (error.code !== undefined && /^[0-9A-Z]{5}$/.test(error.code)) {
    return sqlStates[error.code] ?? `server error (SQLSTATE ${error.code})`
  }
  if (error.code !== undefined) return connectionError(error, host, port)
  // pg's own errors: a password the server asks for and the monitor lacks, or a connection lost.
  return /password/i.test(error.message)
    ? "authentication failed: the server asks for a password"
    : /terminated|closed|ended/i.test(error.message)
    ? "connection closed by the server"
    : "connection failed"
}

export const postgresCheck = (check: PostgresCheck, options: ConversationOptions = {}): Effect.Effect<CheckOutcome> => {
  const target = parseServiceTarget(check.url, { plain: "postgres", port: 5432 })
  if (target === undefined) {
    return Effect.succeed(
      failed(`invalid postgres target (want postgres://[user@]host[:port][/database]): ${check.url}`, 0)
    )
  }
  const user = target.user ?? "postgres"
  return libraryCheck(target, check.timeoutMs, options.outbound, ({ address }, finish) => {
    const client = new pg.Client({
      host: address,
      port: target.port,
      user,
      database: target.path ?? user,
      // A function, so pg never falls back to PGPASSWORD or a .pgpass file of the probe's machine.
      password: () => Promise.resolve(check.password ?? ""),
      ssl: false,
      application_name: "status-page-probe",
      connectionTimeoutMillis: check.timeoutMs
    })
    // An error after the verdict (the server closing) must not reach the process.
    client.on("error", () => undefined)
    capReceived(
      (client as unknown as { connection: { stream: Socket } }).connection.stream,
      () => finish("the server sent more than 1 MB")
    )
    client.connect().then(() => client.query("SELECT 1")).then(
      () => finish(null),
      (error: Error & { code?: string }) => finish(describe(error, target.host, target.port))
    )
    // A failed connection's end rejects too; nothing more to report.
    return () => void client.end().catch(() => undefined)
  })
}
