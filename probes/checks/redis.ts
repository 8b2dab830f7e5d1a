/**
 * The `redis` check: connects to `redis://[user@]host[:6379][/db]` (`rediss://`: TLS), logs in
 * with AUTH when the monitor has a password (or names a user), SELECTs its database when the
 * URL names one, and passes when PING answers PONG. RESP is a few lines of text: hand-written,
 * no client library (a probe loads this only when a redis job arrives).
 */
import { Effect } from "effect"

import type { CheckOutcome } from "../../src/domain/CheckJob.js"
import { type ConversationOptions, converse, failed, parseServiceTarget, type Verdict } from "./conversation.js"

export interface RedisCheck {
  readonly url: string
  readonly timeoutMs: number
  readonly password?: string | null | undefined
}

/** A RESP command as an array of bulk strings. */
const command = (...args: ReadonlyArray<string>) =>
  Buffer.concat([
    Buffer.from(`*${args.length}\r\n`),
    ...args.flatMap((arg) => [Buffer.from(`$${Buffer.byteLength(arg)}\r\n`), Buffer.from(arg), Buffer.from("\r\n")])
  ])

/** What each reply answers, in the order the commands were sent. */
interface Step {
  readonly command: Buffer
  /** The verdict on a reply (`+…` or `-…`, without CRLF); undefined: go on to the next step. */
  readonly judge: (reply: string) => Verdict
}

/** Only the error's code (`WRONGPASS`, `NOAUTH`, `ERR`): the rest of a Redis error may quote the command's arguments. */
const codeOf = (reply: string) => /^-([A-Z]+)/.exec(reply)?.[1] ?? "error"

export const redisCheck = (check: RedisCheck, options: ConversationOptions = {}): Effect.Effect<CheckOutcome> => {
  const target = parseServiceTarget(check.url, { plain: "redis", tls: "rediss", port: 6379 })
  if (target === undefined || (target.path !== undefined && !/^\d{1,5}$/.test(target.path))) {
    return Effect.succeed(failed(`invalid redis target (want redis://[user@]host[:port][/db]): ${check.url}`, 0))
  }
  const steps: Array<Step> = []
  const password = check.password ?? null
  if (password !== null || target.user !== undefined) {
    steps.push({
      command: target.user === undefined ? command("AUTH", password!) : command("AUTH", target.user, password ?? ""),
      judge: (reply) =>
        reply.startsWith("+")
          ? undefined
          : {
            error: /^-(WRONGPASS|ERR invalid password)/.test(reply)
              ? "authentication failed"
              : `AUTH refused (${codeOf(reply)})`
          }
    })
  }
  if (target.path !== undefined) {
    const db = target.path
    steps.push({
      command: command("SELECT", db),
      judge: (reply) => reply.startsWith("+") ? undefined : { error: selectError(reply, db) }
    })
  }
  steps.push({
    command: command("PING"),
    judge: (reply) =>
      reply === "+PONG"
        ? { error: null }
        : {
          error: reply.startsWith("-NOAUTH")
            ? "authentication required: set the password"
            : `PING answered ${reply.startsWith("-") ? codeOf(reply) : "something else than PONG"}`
        }
  })

  let pending: Buffer = Buffer.alloc(0)
  let step = 0
  return converse(target, check.timeoutMs, {
    // Pipelined: one round trip (an error stops the reading at its reply).
    opened: (write) => write(Buffer.concat(steps.map((s) => s.command))),
    received: (chunk) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      for (;;) {
        const end = pending.indexOf("\r\n")
        if (end < 0) return pending.length > 4096 ? { error: "not a Redis server (no reply line)" } : undefined
        const reply = pending.subarray(0, end).toString("latin1")
        pending = pending.subarray(end + 2)
        if (!reply.startsWith("+") && !reply.startsWith("-")) return { error: "not a Redis server (unexpected reply)" }
        const verdict = steps[step++]!.judge(reply)
        if (verdict !== undefined) return verdict
      }
    }
  }, options)
}

const selectError = (reply: string, db: string) =>
  reply.startsWith("-NOAUTH")
    ? "authentication required: set the password"
    : reply.includes("DB index is out of range")
    ? `database ${db} does not exist`
    : `SELECT ${db} refused (${codeOf(reply)})`
