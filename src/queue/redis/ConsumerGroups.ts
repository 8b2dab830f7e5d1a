/**
 * Consumer groups and their members: creating a group, listing its consumers (XINFO CONSUMERS),
 * and removing the dead names every probe restart leaves behind.
 */
import { Effect } from "effect"
import type { Redis } from "ioredis"

import type { QueueError } from "../JobTransport.js"
import { call } from "./RedisConnection.js"

/** What XINFO CONSUMERS says of one consumer of a group. */
export interface ConsumerInfo {
  readonly name: string
  readonly pending: number
  /** Since its last read, claim or keep-alive (Redis 7.2: also one that found nothing). */
  readonly idleMs: number
  /** Redis 7.2: since its last read or claim that delivered something; older: `idleMs`. */
  readonly inactiveMs: number
}

export interface ConsumerGroups {
  /** Creates `group` on `key` reading from `from` (MKSTREAM unless `makeStream` is false); one there already is fine. */
  readonly createGroup: (
    key: string,
    group: string,
    from: "$" | "0",
    makeStream?: boolean
  ) => Effect.Effect<void, QueueError>
  readonly consumersOf: (key: string, group: string) => Effect.Effect<Array<ConsumerInfo>, QueueError>
  readonly forgetIdleConsumers: (key: string, group: string, self: string) => Effect.Effect<void>
}

export const makeConsumerGroups = (
  { forgetConsumersIdleMs, shared }: {
    readonly shared: Redis
    /** A joining consumer removes siblings idle this long with nothing pending. */
    readonly forgetConsumersIdleMs: number
  }
): ConsumerGroups => {
  const createGroup = (key: string, group: string, from: "$" | "0", makeStream = true) =>
    call(
      `creating consumer group ${group} on ${key}`,
      () =>
        (makeStream ? shared.xgroup("CREATE", key, group, from, "MKSTREAM") : shared.xgroup("CREATE", key, group, from))
          .catch((error: Error) => {
            if (!error.message.startsWith("BUSYGROUP")) {
              throw error
            }
          })
    ).pipe(Effect.asVoid)

  /** XINFO CONSUMERS of `group` on `key`. */
  const consumersOf = (key: string, group: string) =>
    call(
      `listing consumers of ${key}/${group}`,
      () => shared.xinfo("CONSUMERS", key, group) as Promise<Array<Array<string | number>>>
    ).pipe(Effect.map((consumers) =>
      consumers.map((fields): ConsumerInfo => {
        const info = new Map<string, string | number>()
        for (let i = 0; i + 1 < fields.length; i += 2) {
          info.set(String(fields[i]), fields[i + 1]!)
        }
        const idleMs = Number(info.get("idle"))
        return {
          name: String(info.get("name")),
          pending: Number(info.get("pending")),
          idleMs,
          inactiveMs: info.has("inactive") ? Number(info.get("inactive")) : idleMs
        }
      })
    ))

  /** Deletes long-idle consumers without pending entries; one with entries is left for a claim. */
  const forgetIdleConsumers = (key: string, group: string, self: string) =>
    consumersOf(key, group).pipe(
      Effect.flatMap((consumers) => {
        const idle = consumers.flatMap(({ inactiveMs, name, pending }) =>
          name !== self && pending === 0 && inactiveMs >= forgetConsumersIdleMs ? [name] : []
        )
        return Effect.forEach(
          idle,
          (name) => call(`removing consumer ${name}`, () => shared.xgroup("DELCONSUMER", key, group, name)),
          { discard: true }
        ).pipe(
          Effect.tap(() =>
            idle.length > 0
              ? Effect.logInfo("removed idle consumers").pipe(
                Effect.annotateLogs({ stream: key, group, consumers: idle.join(",") })
              )
              : Effect.void
          )
        )
      }),
      Effect.catch((error) =>
        Effect.logWarning("could not remove idle consumers").pipe(Effect.annotateLogs({ error: error.message }))
      )
    )

  return { createGroup, consumersOf, forgetIdleConsumers }
}
