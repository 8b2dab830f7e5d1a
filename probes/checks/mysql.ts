/**
 * The `mysql` check: connects to `mysql://[user@]host[:3306][/database]` with `mysql2` (the user
 * `root` when the URL names none), logs in with the monitor's password (mysql2 speaks every
 * login method MySQL and MariaDB use: native, caching_sha2, ed25519), runs `SELECT 1` and passes
 * when it answers. The host is resolved through OUTBOUND_DENY first and mysql2 connects to the
 * address. Loaded only when a mysql job arrives: a chunk of its own in the probe bundle.
 */
import type { Socket } from "node:net"

import { Effect } from "effect"
import mysql from "mysql2"

import type { CheckOutcome } from "../../src/domain/CheckJob.js"
import {
  capReceived,
  connectionError,
  type ConversationOptions,
  failed,
  libraryCheck,
  parseServiceTarget
} from "./conversation.js"

export interface MysqlCheck {
  readonly url: string
  readonly timeoutMs: number
  readonly password?: string | null | undefined
}

/** The server's errors a check meets, in fixed words; any other is named by its code. */
const serverErrors: Record<string, string> = {
  ER_ACCESS_DENIED_ERROR: "authentication failed",
  ER_ACCESS_DENIED_NO_PASSWORD_ERROR: "authentication failed",
  ER_DBACCESS_DENIED_ERROR: "the user may not open the database",
  ER_BAD_DB_ERROR: "database does not exist",
  ER_HOST_NOT_PRIVILEGED: "the server refuses connections from this probe's address",
  ER_HOST_IS_BLOCKED: "the server blocks this probe's address (too many connection errors)",
  ER_CON_COUNT_ERROR: "too many connections",
  ER_NOT_SUPPORTED_AUTH_MODE: "the server asks for a login method the check does not speak",
  PROTOCOL_CONNECTION_LOST: "connection closed by the server",
  HANDSHAKE_NO_SSL_SUPPORT: "the server wants TLS"
}

const describe = (error: Error & { code?: string | undefined; fatal?: boolean }, host: string, port: number) =>
  error.code === undefined
    ? "connection failed"
    : serverErrors[error.code] ?? (error.code.startsWith("ER_")
      ? `server error (${error.code})`
      : error.code === "ETIMEDOUT"
      ? "timed out while connecting"
      : connectionError(error, host, port))

export const mysqlCheck = (check: MysqlCheck, options: ConversationOptions = {}): Effect.Effect<CheckOutcome> => {
  const target = parseServiceTarget(check.url, { plain: "mysql", port: 3306 })
  if (target === undefined) {
    return Effect.succeed(failed(`invalid mysql target (want mysql://[user@]host[:port][/database]): ${check.url}`, 0))
  }
  return libraryCheck(target, check.timeoutMs, options.outbound, ({ address }, finish) => {
    const connection = mysql.createConnection({
      host: address,
      port: target.port,
      user: target.user ?? "root",
      password: check.password ?? "",
      ...(target.path !== undefined ? { database: target.path } : {}),
      connectTimeout: check.timeoutMs
    })
    // Errors after the verdict (the server closing) must not reach the process.
    connection.on("error", () => undefined)
    capReceived((connection as unknown as { stream: Socket }).stream, () => finish("the server sent more than 1 MB"))
    connection.query("SELECT 1", (error) => finish(error === null ? null : describe(error, target.host, target.port)))
    return () => connection.destroy()
  })
}
