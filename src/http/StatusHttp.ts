import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { defaultResponseTimesPeriod } from "../domain/ResponseTimes.js"
import { defaultUptimePeriod } from "../domain/Uptime.js"
import { PublicResponseTimes } from "../services/public/PublicResponseTimes.js"
import type { EncodedResponse } from "../services/public/PublicSnapshot.js"
import { PublicSnapshot } from "../services/public/PublicSnapshot.js"
import { PublicUptime } from "../services/public/PublicUptime.js"
import { toHttpResponse } from "./PublicResponses.js"

/** Answers from the snapshot's pre-encoded bytes, with ETag and 304 on a matching If-None-Match. */
const respond = <E, R>(response: Effect.Effect<EncodedResponse | undefined, E, R>) =>
  Effect.flatMap(
    response,
    (found) => found === undefined ? Effect.die(new Error("The snapshot lacks a public path")) : toHttpResponse(found)
  )

export const StatusHttp = HttpApiBuilder.group(Api, "status", (handlers) =>
  Effect.gen(function*() {
    const snapshot = yield* PublicSnapshot
    const uptime = yield* PublicUptime
    const responseTimes = yield* PublicResponseTimes
    const path = (suffix: string) => snapshot.cached(`/api/v1/status${suffix}`)
    return handlers
      .handle("summary", () => respond(path("")))
      .handle("components", () => respond(path("/components")))
      .handle("incidents", ({ query }) => respond(snapshot.incidents(query)))
      .handle("incident", ({ params }) => respond(snapshot.incident(params.id)))
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
