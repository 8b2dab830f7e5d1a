/**
 * The handlers of the API's `status` group (`/api/v1/status` and below), the public reads: each
 * answers from the room's caches (SnapshotResponses, PublicUptime, PublicResponseTimes), whose
 * responses are encoded once per snapshot or read, as the fast path does.
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { defaultResponseTimesPeriod } from "../domain/ResponseTimes.js"
import { defaultUptimePeriod } from "../domain/Uptime.js"
import type { EncodedResponse } from "./PublicResponses.js"
import { toHttpResponse } from "./PublicResponses.js"
import { PublicResponseTimes } from "./PublicResponseTimes.js"
import { PublicUptime } from "./PublicUptime.js"
import { SnapshotResponses } from "./SnapshotResponses.js"

/** Answers from the snapshot's pre-encoded bytes, with ETag and 304 on a matching If-None-Match. */
const respond = <E, R>(response: Effect.Effect<EncodedResponse | undefined, E, R>) =>
  Effect.flatMap(
    response,
    (found) => found === undefined ? Effect.die(new Error("The snapshot lacks a public path")) : toHttpResponse(found)
  )

export const StatusHttp = HttpApiBuilder.group(Api, "status", (handlers) =>
  Effect.gen(function*() {
    const responses = yield* SnapshotResponses
    const uptime = yield* PublicUptime
    const responseTimes = yield* PublicResponseTimes
    const path = (suffix: string) => responses.cached(`/api/v1/status${suffix}`)
    return handlers
      .handle("summary", () => respond(path("")))
      .handle("components", () => respond(path("/components")))
      .handle("incidents", ({ query }) => respond(responses.incidents(query)))
      .handle("incident", ({ params }) => respond(responses.incident(params.id)))
      .handle("maintenance", () => respond(path("/maintenance")))
      .handle("rss", () => respond(path("/rss")))
      .handle("atom", () => respond(path("/atom")))
      .handle("uptime", ({ query }) => Effect.flatMap(uptime.get(query.period ?? defaultUptimePeriod), toHttpResponse))
      .handle("responseTimes", ({ params, query }) =>
        Effect.flatMap(
          responseTimes.get(params.id, query.period ?? defaultResponseTimesPeriod),
          toHttpResponse
        ))
  }))
